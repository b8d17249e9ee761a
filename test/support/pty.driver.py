"""
Runs a command in a pseudo-terminal (so that it sees a TTY on stdin, stdout and stderr), types scripted replies
when the screen shows the text each one waits for, and prints what the terminal received as JSON:
{"output": "<base64 of every byte>", "status": <exit code, or 128 + signal>}.

    python3 pty.driver.py '{"argv": ["node", "cli.js"], "replies": [["Go ahead\\?", "y"]], "columns": 100, "timeout": 60}'

Only the standard library: no install needed.
"""
import base64, fcntl, json, os, pty, re, select, struct, sys, termios, time

spec = json.loads(sys.argv[1])
columns = spec.get('columns', 100)
pid, fd = pty.fork()
if pid == 0:
    # In the child, stdin is the terminal: give it a known size before the program asks for it.
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack('HHHH', 40, columns, 0, 0))
    os.environ.update(spec.get('env', {}))
    os.execvp(spec['argv'][0], spec['argv'])

replies = [(re.compile(pattern.encode()), text) for pattern, text in spec.get('replies', [])]
output = b''
searched_from = 0
deadline = time.time() + spec.get('timeout', 60)
while time.time() < deadline:
    ready, _, _ = select.select([fd], [], [], 0.1)
    if fd in ready:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break  # EIO: the child closed the terminal
        if not chunk:
            break
        output += chunk
    if replies:
        match = replies[0][0].search(output, searched_from)
        if match:
            searched_from = match.end()
            os.write(fd, (replies.pop(0)[1] + '\r').encode())
else:
    os.kill(pid, 9)

_, status = os.waitpid(pid, 0)
code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)
print(json.dumps({'output': base64.b64encode(output).decode(), 'status': code, 'unanswered': [r[0].pattern.decode() for r in replies]}))
