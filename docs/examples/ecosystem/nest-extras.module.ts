import { ClassSerializerInterceptor, ConsoleLogger, Injectable, Logger, Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { CacheModule } from '@nestjs/cache-manager';
import { EventEmitter2, EventEmitterModule, OnEvent } from '@nestjs/event-emitter';
import { Exclude, Expose } from 'class-transformer';
import { IsString } from 'class-validator';
import { CLS_ID, ClsModule, ClsService } from 'nestjs-cls';
import { McpModule, type McpModuleOptions, McpPublisher, McpResource, McpTool } from 'nest-mcp';
import { McpCacheInterceptor } from 'nest-mcp/cache-manager';

// #region docs:class-serializer
/** A view of a user: the hash never leaves the server, the display name is computed. */
export class UserView {
  @IsString() id!: string;
  @IsString() name!: string;
  @Exclude() passwordHash!: string;

  constructor(fields: { id: string; name: string; passwordHash: string }) {
    Object.assign(this, fields);
  }

  @Expose()
  @IsString()
  get displayName(): string {
    return `${this.name} (${this.id})`;
  }
}

@Injectable()
export class UserTools {
  runs = 0;

  /** With `ClassSerializerInterceptor`, `structuredContent` is the serialized view: no `passwordHash`. */
  @McpTool({ name: 'get_user', description: 'A user by id', output: UserView, annotations: { readOnlyHint: true } })
  getUser(): UserView {
    this.runs++;
    return new UserView({ id: 'u1', name: 'Ada', passwordHash: '$2b$10$secret' });
  }
}
// #endregion docs:class-serializer

// #region docs:event-emitter
/** Whatever in the app changes a profile emits an event; this listener tells MCP clients. */
@Injectable()
export class ProfileEvents {
  constructor(private readonly publisher: McpPublisher) {}

  @OnEvent('profile.updated', { promisify: true })
  async onProfileUpdated(event: { userId: string }): Promise<void> {
    await this.publisher.resourceUpdated(`users://${event.userId}/profile`);
  }
}

@Injectable()
export class ProfileService {
  constructor(private readonly events: EventEmitter2) {}

  async rename(userId: string): Promise<void> {
    // … save …
    await this.events.emitAsync('profile.updated', { userId });
  }
}
// #endregion docs:event-emitter

@Injectable()
export class ProfileResources {
  @McpResource({ uri: 'users://u1/profile', name: 'profile', mimeType: 'application/json' })
  profile() {
    return JSON.stringify({ id: 'u1' });
  }
}

// #region docs:call-logger
/** Nest's console logger, with the id of the current call (or HTTP request) on every line. */
@Injectable()
export class CallIdLogger extends ConsoleLogger {
  constructor(private readonly cls: ClsService) {
    super();
  }

  protected override formatContext(context: string): string {
    const id = this.cls.isActive() ? this.cls.getId() : undefined;
    return super.formatContext(id ? `${context} ${id}` : context);
  }
}
// #endregion docs:call-logger

@Injectable()
export class LoggingTools {
  private readonly logger = new Logger(LoggingTools.name);

  @McpTool({ name: 'log_hello', description: 'Logs a line' })
  logHello() {
    this.logger.log('hello');
    return 'logged';
  }
}

// #region docs:nest-extras-module
@Module({
  imports: [
    // The cache first (outermost), the serializer inside it: what is cached is already serialized.
    CacheModule.register({ isGlobal: true, ttl: 60_000 }),
    EventEmitterModule.forRoot(),
    ClsModule.forRoot({ global: true }),
    McpModule.forRootAsync({
      inject: [ClsService],
      useFactory: (cls: ClsService): McpModuleOptions => ({
        name: 'users',
        version: '1.0.0',
        aroundHandler: (call, run) => cls.run(() => (cls.set(CLS_ID, `${call.name}#${call.requestId}`), run())),
      }),
    }),
  ],
  providers: [
    { provide: APP_INTERCEPTOR, useClass: McpCacheInterceptor },
    { provide: APP_INTERCEPTOR, useClass: ClassSerializerInterceptor },
    UserTools,
    ProfileEvents,
    ProfileService,
    ProfileResources,
    LoggingTools,
    CallIdLogger,
  ],
})
export class NestExtrasModule {}
// #endregion docs:nest-extras-module
