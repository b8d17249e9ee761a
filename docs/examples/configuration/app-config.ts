import { Injectable, Module } from '@nestjs/common';

// #region docs:app-config
/** The application's settings, read from the environment. */
@Injectable()
export class AppConfig {
  get(name: string): string | undefined {
    return process.env[name];
  }

  getOrThrow(name: string): string {
    const value = process.env[name];
    if (value === undefined || value === '') throw new Error(`${name} is not set`);
    return value;
  }
}

@Module({ providers: [AppConfig], exports: [AppConfig] })
export class AppConfigModule {}
// #endregion docs:app-config
