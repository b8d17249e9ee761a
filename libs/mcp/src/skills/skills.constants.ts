/**
 * The id of the skills extension (SEP-2640; ext-skills spec: skills, "Capability Negotiation"): the key a server
 * advertises in `capabilities.extensions` (`server/discover`, and a 2025-11-25 `initialize` result).
 */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/** The URI scheme skills are served under: `skill://<skill-path>/<file-path>`. */
export const SKILL_SCHEME = 'skill';

/** The file every skill has at its root. */
export const SKILL_FILE = 'SKILL.md';

/** The MIME type of a `SKILL.md` resource. */
export const SKILL_MIME_TYPE = 'text/markdown';

/** The MIME type of a directory resource (`resources/directory/read`). */
export const DIRECTORY_MIME_TYPE = 'inode/directory';

/** Metadata key of `@McpSkill`. */
export const MCP_SKILL_METADATA = 'nest-mcp:skill';

/** What a skill SHOULD NOT exceed (SEP-2640, "Limits"): files in its manifest (`SKILL.md` included), summed bytes. */
export const SKILL_LIMITS = Object.freeze({ maxResources: 512, maxBytes: 16 * 1024 * 1024 });

/**
 * A skill name (Agent Skills naming, as the conformance suite and the Inspector enforce it): 1-64 characters of
 * lowercase ASCII letters, digits and `-`, no leading, trailing or doubled hyphen.
 */
export const SKILL_NAME = /^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$/;

/** Longest `description` the Inspector accepts, in code points. */
export const MAX_SKILL_DESCRIPTION = 1024;

/** The `metadata` key prefix reserved for MCP extensions inside frontmatter (SEP-2640, "Frontmatter"). */
export const RESERVED_METADATA_PREFIX = 'io.modelcontextprotocol/';
