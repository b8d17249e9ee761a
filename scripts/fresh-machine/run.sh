#!/usr/bin/env bash
# A fresh machine with only Node and npm: a minimal Debian bookworm (debootstrap --variant=minbase, plus git and
# ca-certificates to clone and fetch), this machine's node binary and npm copied in, nothing else — no redis-server,
# nginx, chromium, iproute2, no node_modules. Then a fresh clone of the commit under test and the README's commands.
#
# Usage (as root, on Debian or Ubuntu): scripts/fresh-machine/run.sh [COMMIT]   (default: HEAD of this checkout)
#   ROOTFS=/var/tmp/nest-mcp-fresh     where the minimal Debian lives (made with debootstrap on first use)
#   KEEP_PACKAGES=1                    keep the packages an earlier run's npm test installed (faster; not fresh)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
ROOT=${ROOTFS:-/var/tmp/nest-mcp-fresh}
COMMIT=${1:-$(git -C "$REPO" rev-parse HEAD)}
if [ ! -x "$ROOT/usr/bin/apt-get" ]; then
  command -v debootstrap >/dev/null || apt-get install -y debootstrap
  debootstrap --variant=minbase --include=ca-certificates,git bookworm "$ROOT" http://deb.debian.org/debian
fi
# / of the chroot must be a mount point of its own (ip netns exec remounts it as a slave), as on a real machine.
findmnt -n $ROOT >/dev/null || mount --bind $ROOT $ROOT
findmnt -n $ROOT/proc >/dev/null || mount -t proc proc $ROOT/proc
findmnt -n $ROOT/sys >/dev/null || mount --rbind /sys $ROOT/sys
findmnt -n $ROOT/dev >/dev/null || mount --rbind /dev $ROOT/dev
cp /etc/resolv.conf $ROOT/etc/resolv.conf
# What every machine of this kind has besides Node and npm: the sandbox's egress CA and npm's settings for it.
cp /usr/local/share/ca-certificates/*.crt $ROOT/usr/local/share/ca-certificates/ 2>/dev/null || true
chroot $ROOT update-ca-certificates >/dev/null 2>&1
mkdir -p $ROOT/usr/etc && { cp /usr/etc/npmrc $ROOT/usr/etc/npmrc 2>/dev/null; cp /etc/npmrc $ROOT/etc/npmrc 2>/dev/null; true; }
[ -d /usr/include/node ] && rm -rf $ROOT/usr/include/node && mkdir -p $ROOT/usr/include && cp -a /usr/include/node $ROOT/usr/include/node || true
install -m 0755 "$(command -v node)" $ROOT/usr/local/bin/node
rm -rf $ROOT/usr/local/lib/node_modules && mkdir -p $ROOT/usr/local/lib/node_modules && cp -a "$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")" $ROOT/usr/local/lib/node_modules/
ln -sf ../lib/node_modules/npm/bin/npm-cli.js $ROOT/usr/local/bin/npm
ln -sf ../lib/node_modules/npm/bin/npx-cli.js $ROOT/usr/local/bin/npx
cp "$HERE/demo-check.mjs" $ROOT/root/demo-check.mjs
rm -rf $ROOT/root/nest-mcp $ROOT/root/.npm $ROOT/root/.cache
# Back to a machine without the test packages (an earlier run installed them).
[ "${KEEP_PACKAGES:-}" = 1 ] || chroot $ROOT /usr/bin/env -i PATH=/usr/bin:/bin:/usr/sbin:/sbin DEBIAN_FRONTEND=noninteractive \
  sh -c 'apt-get purge -y -qq redis-server redis-tools nginx nginx-common chromium chromium-common iproute2 curl >/dev/null 2>&1; apt-get autoremove -y -qq --purge >/dev/null 2>&1; true'
git clone -q "$REPO" $ROOT/root/nest-mcp
git -C $ROOT/root/nest-mcp checkout -q "$COMMIT"
echo "fresh machine: $(chroot $ROOT sh -c 'command -v redis-server nginx chromium ip || true' | wc -l) of redis-server/nginx/chromium/ip present; commit $(git -C $ROOT/root/nest-mcp rev-parse --short HEAD)"
# The tests make user namespaces (unshare -rn), which the kernel refuses to a chrooted process: enter the rootfs as
# the root of a mount namespace of its own (pivot_root), as a container or a real machine has it.
unshare --mount --fork bash -c "
  set -e
  mount --make-rprivate /
  mount --rbind $ROOT $ROOT
  cd $ROOT && mkdir -p .oldroot && pivot_root . .oldroot
  umount -l /.oldroot && rmdir /.oldroot
  exec /usr/bin/env -i HOME=/root NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin TERM=dumb \
    bash -c 'cd /root/nest-mcp && node --version && npm --version && npm ci --no-audit --no-fund && node /root/demo-check.mjs && npm test'
"
