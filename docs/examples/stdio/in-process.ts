import { Test } from '@nestjs/testing';
import { McpStdio } from 'nest-mcp';
import { PassThrough } from 'node:stream';
import { AppModule } from '../getting-started/app.module.js';

// #region docs:in-process
const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
const stdin = new PassThrough();
const stdout = new PassThrough();
const server = await McpStdio.attach(moduleRef, { stdin, stdout });

stdout.setEncoding('utf8');
stdout.on('data', (lines: string) => console.log(lines.trimEnd()));
const listTools = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/list',
  params: {
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
};
stdin.write(`${JSON.stringify(listTools)}\n`); // one JSON-RPC message per line
stdin.end(); // answers what is in flight, then closes
await server.closed;
await moduleRef.close();
// #endregion docs:in-process
