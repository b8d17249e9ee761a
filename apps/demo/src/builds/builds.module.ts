import { Module } from '@nestjs/common';
import { BuildPackageTool } from './build-package.tool.js';

/** Builds of this repository's packages: a tool that wraps a real command and relays its progress. */
@Module({ providers: [BuildPackageTool] })
export class BuildsModule {}
