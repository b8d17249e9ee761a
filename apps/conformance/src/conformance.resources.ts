import { Injectable } from '@nestjs/common';
import { McpArgs, McpResource, McpResourceTemplate } from 'nest-mcp';
import { PNG_1X1_BASE64 } from './conformance.assets.js';

/** The conformance suite's resources. */
@Injectable()
export class ConformanceResources {
  @McpResource({
    uri: 'test://static-text',
    name: 'Static Text Resource',
    description: 'A static text resource',
    mimeType: 'text/plain',
  })
  staticText() {
    return 'This is the content of the static text resource.';
  }

  @McpResource({
    uri: 'test://static-binary',
    name: 'Static Binary Resource',
    description: 'A static PNG',
    mimeType: 'image/png',
  })
  staticBinary() {
    return Buffer.from(PNG_1X1_BASE64, 'base64');
  }

  @McpResource({
    uri: 'test://watched-resource',
    name: 'Watched Resource',
    description: 'A resource to subscribe to',
    mimeType: 'text/plain',
  })
  watched() {
    return 'Watched resource content';
  }

  @McpResourceTemplate({
    uriTemplate: 'test://template/{id}/data',
    name: 'Template Resource',
    description: 'A resource addressed by id',
    mimeType: 'application/json',
  })
  template(@McpArgs('id') id: string) {
    return JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` });
  }
}
