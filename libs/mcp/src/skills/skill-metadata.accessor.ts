import { Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { McpSkillOptions } from './mcp-skill.decorator.js';
import { MCP_SKILL_METADATA } from './skills.constants.js';

/** The only place that reads `@McpSkill` metadata back. */
@Injectable()
export class McpSkillMetadataAccessor {
  constructor(private readonly reflector: Reflector) {}

  /** The options of `@McpSkill` on a class or a method, if any. */
  getSkillOptions(target: Function): McpSkillOptions | undefined {
    return this.reflector.get<McpSkillOptions | undefined>(MCP_SKILL_METADATA, target);
  }
}
