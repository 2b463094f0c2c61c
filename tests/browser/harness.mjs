// SPDX-License-Identifier: Apache-2.0
// Test harness for the console's browser tests: a real `neardup serve` on
// 127.0.0.1 with a free port and a fresh store, and Debian's chromium
// driven by playwright-core with a fresh profile.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.NEARDUP_CHROMIUM || '/usr/bin/chromium';

export function tempDir(tag) {
  return fs.mkdtempSync(path.join(os.tmpdir(), `neardup_browser_${tag}_`));
}

// Starts `neardup serve` with `flags`; resolves once it listens.
export async function startServer(flags = []) {
  const binary = process.env.NEARDUP_BINARY;
  if (!binary) throw new Error('set NEARDUP_BINARY to the neardup executable');
  const dir = tempDir('store');
  const portFile = path.join(dir, 'port');
  const child = spawn(binary, ['serve', '--data', path.join(dir, 'data'), '--listen', '127.0.0.1:0',
    '--port-file', portFile, ...flags], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  for (let i = 0; i < 600; ++i) {  // up to 30 s
    if (child.exitCode !== null) throw new Error(`neardup serve exited: ${stderr}`);
    if (fs.existsSync(portFile)) {
      const port = Number(fs.readFileSync(portFile, 'utf8').trim());
      return {
        base: `http://127.0.0.1:${port}`,
        async stop() {
          child.kill('SIGTERM');
          for (let j = 0; j < 600 && child.exitCode === null; ++j) await sleep(50);
          if (child.exitCode === null) child.kill('SIGKILL');
          fs.rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    await sleep(50);
  }
  child.kill('SIGKILL');
  throw new Error('neardup serve did not start');
}

// Debian's chromium with the flags this machine needs (no sandbox as root,
// no background connections to the closed network) and a new profile.
export async function launchBrowser() {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} missing: run scripts/setup`);
  const profile = tempDir('profile');
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1200, height: 860 },
    locale: 'en-US',
    timezoneId: 'Asia/Shanghai',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--disable-dev-shm-usage'],
  });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

export async function api(base, method, p, body, token) {
  const headers = { 'Content-Type': 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(base + p, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, headers: res.headers, json, text };
}
