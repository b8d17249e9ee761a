import { Injectable, Module } from '@nestjs/common';
import { type McpDeliveryAuthorizer, McpModule, McpPublisher } from 'nest-mcp';

/** What the directory stores per user (the example's own type). */
export interface Profile {
  displayName: string;
}

// #region docs:audience
/** Saves profiles and tells the owner's listen streams, and nobody else's, that a profile changed. */
@Injectable()
export class ProfileService {
  private readonly profiles = new Map<string, Profile>();

  constructor(private readonly publisher: McpPublisher) {}

  async save(user: string, profile: Profile): Promise<void> {
    this.profiles.set(user, profile);
    // Without `audience`, every listener subscribed to users://directory/ would be told.
    await this.publisher.resourceUpdated(`users://directory/${user}/profile`, { audience: { principals: [user] } });
  }
}
// #endregion docs:audience

// #region docs:authorize-delivery
/** A second line of defence: an update under users://directory/<name>/ only ever reaches <name>'s streams. */
const ownEntriesOnly: McpDeliveryAuthorizer = (listener, event) => {
  if (event.type !== 'resourceUpdated' || !event.uri.startsWith('users://directory/')) return true;
  return listener.principal !== undefined && event.uri.startsWith(`users://directory/${listener.principal}/`);
};

@Module({
  imports: [
    McpModule.forRoot({
      name: 'directory',
      version: '1.0.0',
      principal: (request) => (request as { user?: { sub?: string } }).user?.sub, // set by your HTTP auth guard
      authorizeDelivery: ownEntriesOnly, // synchronous: runs for every event × subscribed listener
    }),
  ],
  providers: [ProfileService],
})
export class DirectoryModule {}
// #endregion docs:authorize-delivery
