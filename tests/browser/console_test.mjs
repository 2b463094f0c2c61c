// SPDX-License-Identifier: Apache-2.0
// The news-desk console in a real browser (docs/console.md): Debian's
// chromium, driven by playwright-core, against a real `neardup serve` on
// 127.0.0.1 holding a small fixture of reprints (fixture.mjs).
//
// Run by ctest (label browser): NEARDUP_BINARY=build/neardup node --test
// tests/browser/console_test.mjs. With NEARDUP_UPDATE_SCREENSHOTS=1 it also
// writes the screenshots of docs/console.md into docs/console/.
//
// The tests run in order and share one server: the list checks come before
// anything that opens a detail page, because a look-up refreshes a story's
// time and so its place in the recency order.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { api, launchBrowser, startServer, tempDir } from './harness.mjs';
import { documents, expectedBySizeDesc } from './fixture.mjs';

const SHOTS = process.env.NEARDUP_UPDATE_SCREENSHOTS === '1'
  ? path.resolve(import.meta.dirname, '../../docs/console') : null;
// The default pipeline; no expiry, since the fixture's times are in 2024.
const SERVER_FLAGS = ['--store-text', '--ttl', '0'];
const byId = new Map(documents.map((d) => [d.id, d]));
// Ascending by size: sizes up, ties by id ascending (docs/api.md).
const sizeAsc = [...expectedBySizeDesc].sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1));

async function shoot(page, name) {
  if (!SHOTS) return;
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

// The rows of the list once it has loaded: [[cluster id, "N similar"], ...].
async function rows(page) {
  await page.waitForSelector('#stories[data-loaded]');
  return page.$$eval('#stories .story', (els) =>
    els.map((e) => [e.dataset.cluster, e.querySelector('.similar').textContent.trim()]));
}

// Waits until the list shows exactly `ids`, in order (it reloads in place).
async function waitForRows(page, ids) {
  await page.waitForFunction((want) => {
    const got = [...document.querySelectorAll('#stories .story')].map((e) => e.dataset.cluster);
    return JSON.stringify(got) === JSON.stringify(want);
  }, ids);
}

// One browser for both suites; each page is a new tab (own sessionStorage).
// Servers stop after the browser has closed its keep-alive connections, so
// that they exit at once.
let browser;
const servers = [];
const dirs = [];
async function serve(flags) {
  const s = await startServer(flags);
  servers.push(s);
  return s;
}
before(async () => { browser = await launchBrowser(); });
after(async () => {
  if (browser) await browser.close();
  await Promise.all(servers.map((s) => s.stop()));
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('news desk console', () => {
  let server, page;
  const errors = [];  // console errors and uncaught exceptions (CSP violations included)

  before(async () => {
    server = await serve(SERVER_FLAGS);
    const r = await api(server.base, 'POST', '/v1/documents:batch', documents);
    assert.equal(r.status, 200);
    assert.equal(r.json.failed, 0);
    page = await browser.context.newPage();
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(e.message));
  });

  after(async () => {
    if (page) await page.close();
  });

  it('serves the page with a Content-Security-Policy that forbids inline script', async () => {
    for (const p of ['/', '/console/app.js', '/console/style.css']) {
      const r = await api(server.base, 'GET', p);
      assert.equal(r.status, 200, p);
      const csp = r.headers.get('content-security-policy');
      assert.match(csp, /script-src 'self'/, p);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, p);
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
    }
    const apiRes = await api(server.base, 'GET', '/v1/stats');
    assert.equal(apiRes.headers.get('content-security-policy'), "default-src 'none'; frame-ancestors 'none'");
    const missing = await api(server.base, 'GET', '/console/nope.js');
    assert.equal(missing.status, 404);
  });

  it('lists one row per story by size, descending then ascending', async () => {
    await page.goto(`${server.base}/`);
    const want = expectedBySizeDesc.map(([id, size]) => [id, `${size - 1}similar`]);
    assert.deepEqual(await rows(page), want);
    // Titles: the first line of the text, or meta.title.
    const titles = await page.$$eval('#stories .story-title', (els) => els.map((e) => e.textContent));
    assert.equal(titles[0], '滨江新图书馆今日开放 藏书逾百万册');
    assert.equal(titles[1], 'Volunteers pull two tonnes of rubbish from Willow River');
    await shoot(page, 'list');

    await page.click('#order');
    // Ascending: sizes up, ties by id ascending.
    await waitForRows(page, sizeAsc.map(([id]) => id));
    assert.deepEqual(await rows(page), sizeAsc.map(([id, size]) => [id, `${size - 1}similar`]));
    assert.match(page.url(), /order=asc/);
  });

  it('sorts by recency in both directions', async () => {
    // A story's time is the latest arrival in it (nothing was looked up yet).
    const latest = new Map();
    for (const [id] of expectedBySizeDesc) latest.set(id, 0);
    const clusterOf = {
      'jiangnan-2201': 'dongfang-0412', 'xinghai-7781': 'dongfang-0412', 'beian-0093': 'dongfang-0412',
      'courier-88': 'gazette-551', 'metro-3120': 'gazette-551', 'xinghai-7790': 'dongfang-0419',
    };
    for (const d of documents) {
      const c = clusterOf[d.id] || d.id;
      latest.set(c, Math.max(latest.get(c), d.time));
    }
    const desc = [...latest].sort((a, b) => b[1] - a[1]).map(([id]) => id);
    await page.goto(`${server.base}/#/?sort=recent&order=desc`);
    await waitForRows(page, desc);
    await page.click('#order');
    await waitForRows(page, [...desc].reverse());
    await page.selectOption('#sort', 'size');  // keeps the ascending order
    await waitForRows(page, sizeAsc.map(([id]) => id));
  });

  it('pages with the cursor', async () => {
    await page.goto(`${server.base}/#/?sort=size&order=desc&limit=4`);
    await waitForRows(page, expectedBySizeDesc.slice(0, 4).map(([id]) => id));
    assert.equal(await page.isDisabled('#prev-page'), true);
    await page.click('#next-page');
    await waitForRows(page, expectedBySizeDesc.slice(4).map(([id]) => id));
    assert.equal(await page.textContent('#page-label'), 'Page 2');
    await page.click('#prev-page');
    await waitForRows(page, expectedBySizeDesc.slice(0, 4).map(([id]) => id));
  });

  it('filters by keywords in titles', async () => {
    await page.goto(`${server.base}/`);
    await rows(page);
    await page.fill('#filter', 'WILLOW river');
    await waitForRows(page, ['gazette-551']);
    await page.fill('#filter', '图书馆');
    await waitForRows(page, ['dongfang-0412']);
    assert.match(decodeURIComponent(page.url()), /q=图书馆/);
    await page.fill('#filter', 'no such words');
    await waitForRows(page, []);
    assert.match(await page.textContent('#list-note'), /No story titles match/);
  });

  it('refreshes the list live when a reprint arrives', async () => {
    await page.goto(`${server.base}/`);
    await rows(page);
    await page.waitForSelector('#live[data-state="ok"]');  // the first poll set the baseline
    const cold = byId.get('dongfang-0419');
    const r = await api(server.base, 'POST', '/v1/documents', {
      id: 'beian-0101', time: cold.time + 3600_000, meta: { source: '北岸时报' },
      text: cold.text.replace('冷空气周末到 气温最多降十度', '本周末大风降温 郊区或有霜冻'),
    });
    assert.equal(r.status, 201);
    assert.equal(r.json.cluster, 'dongfang-0419');
    // The page polls /v1/stats and reloads when documents were added.
    await page.waitForFunction(() => {
      const row = document.querySelector('#stories .story[data-cluster="dongfang-0419"] .similar-count');
      return row && row.textContent === '2';
    });
  });

  it('opens a detail page, follows another outlet and shows the diff', async () => {
    await page.goto(`${server.base}/`);
    await rows(page);
    await page.click('#stories .story[data-cluster="dongfang-0412"] .story-title');
    await page.waitForSelector('#members');
    assert.equal(await page.textContent('#doc-title'), '滨江新图书馆今日开放 藏书逾百万册');
    assert.equal(await page.textContent('#doc-text'), byId.get('dongfang-0412').text);
    const members = await page.$$eval('#members .member', (els) => els.map((e) => [
      e.dataset.id, e.querySelector('.member-link').textContent]));
    assert.deepEqual(members.map((m) => m[0]).sort(), ['beian-0093', 'jiangnan-2201', 'xinghai-7781']);
    assert.ok(members.some(([id, outlet]) => id === 'jiangnan-2201' && outlet === '江南晚报'));
    const sims = await page.$$eval('#members .member td.num', (els) => els.map((e) => e.textContent));
    for (const s of sims) assert.match(s, /^\d+\.\d%$/);

    // Follow the link to another outlet's copy.
    await page.click('#members .member[data-id="jiangnan-2201"] .member-link');
    await page.waitForFunction(() => document.querySelector('#doc')?.dataset.id === 'jiangnan-2201');
    await page.waitForSelector('#members .member[data-id="dongfang-0412"]');
    assert.equal(await page.textContent('#doc-title'), '百万册藏书！滨江新馆正式迎客');

    // Compare it with the first report.
    await page.click('#members .member[data-id="dongfang-0412"] .compare');
    await page.waitForSelector('#diff');
    assert.equal(await page.textContent('#diff-left'), byId.get('jiangnan-2201').text);
    assert.equal(await page.textContent('#diff-right'), byId.get('dongfang-0412').text);
    const deleted = (await page.$$eval('#diff-left del', (els) => els.map((e) => e.textContent))).join('|');
    const inserted = (await page.$$eval('#diff-right ins', (els) => els.map((e) => e.textContent))).join('|');
    // The headline, the ad line and the changed characters are marked.
    assert.match(deleted, /百万册藏书/);
    assert.match(deleted, /（来源：东方日报，转载请注明出处）/);
    assert.match(deleted, /日/);
    assert.match(deleted, /9/);
    assert.match(inserted, /今日开放 藏书逾百万册/);
    assert.match(inserted, /九/);
    assert.doesNotMatch(deleted + inserted, /新馆建筑面积约四万平方米/);  // unchanged text stays plain
    await shoot(page, 'detail-diff');
  });

  // A Traditional reprint of a Simplified story: to the engine the same
  // text, so the diff marks no character as changed, only as folded.
  it('compares a Traditional reprint as the engine does: folded characters are equal', async () => {
    const cold = byId.get('dongfang-0419');
    const traditional = '冷空氣週末到 氣溫最多降十度\n受新一股冷空氣影響，本週末起我市將出現明顯降溫和大風天氣。' +
      '市氣象臺預計，週六白天最高氣溫約十四攝氏度，週日早晨最低氣溫將降至二攝氏度左右，降溫幅度達八到十度，' +
      '部分郊區可能出現霜凍。週六下午到夜間，全市有四到五級偏北風，陣風可達七級，沿江地區風力更大。' +
      '氣象部門提醒市民及時添加衣物，外出注意防風，並妥善固定陽臺花盆、廣告牌等高空物品；' +
      '農業生產單位要做好大棚蔬菜的保溫工作。預計下週二起氣溫將逐步回升，天氣以晴到多雲為主。';
    const r = await api(server.base, 'POST', '/v1/documents', {
      id: 'taibei-0001', time: cold.time + 7200_000, meta: { source: '臺北晨報' }, text: traditional,
    });
    assert.equal(r.status, 201);
    assert.equal(r.json.cluster, 'dongfang-0419');
    await page.goto(`${server.base}/#/doc/taibei-0001?vs=dongfang-0419`);
    await page.waitForSelector('#diff');
    assert.equal(await page.textContent('#diff-left'), traditional);
    assert.equal(await page.textContent('#diff-right'), cold.text);
    assert.equal(await page.locator('#diff del, #diff ins').count(), 0);
    const folded = await page.$$eval('#diff-left .folded', (els) => els.map((e) => e.textContent));
    assert.ok(folded.join('').includes('氣'), folded.join('|'));
    assert.match(await page.textContent('#diff-summary'), /100\.0% of characters shared/);
    assert.equal((await api(server.base, 'DELETE', '/v1/documents/taibei-0001')).status, 200);
  });

  // An excerpt of a story: the engine's containment rule files it with the
  // story, and the compare view says where in the story it lies.
  it('shows where an excerpt lies in its story', async () => {
    const story = byId.get('dongfang-0412');
    const body = story.text.slice(story.text.indexOf('\n') + 1);
    const part = body.slice(60, 230);
    const r = await api(server.base, 'POST', '/v1/documents', {
      id: 'wanbao-0001', time: story.time + 3600_000, meta: { source: '城市晚报' },
      text: `（节选）\n${part}`,
    });
    assert.equal(r.status, 201);
    try {
      assert.equal(r.json.cluster, 'dongfang-0412');
      await page.goto(`${server.base}/#/doc/wanbao-0001?vs=dongfang-0412`);
      await page.waitForSelector('#diff');
      const note = await page.textContent('#diff-excerpt');
      assert.match(note, /^“城市晚报” lies in “东方日报”: 9\d\.\d% of its characters/);
      // Where: the part's own characters (give or take one a side: the diff
      // may align a character at an edge with its twin just outside).
      const [, from, to, total] = note.match(/in characters (\d+)–(\d+) of (\d+)/).map(Number);
      const start = story.text.indexOf(part) + 1, end = start + [...part].length - 1;
      assert.ok(Math.abs(from - start) <= 1 && Math.abs(to - end) <= 1, `${from}–${to} vs ${start}–${end}`);
      assert.equal(total, [...story.text].length);
      assert.equal(await page.locator('#diff-right #excerpt-start').count(), 1);
      assert.equal(await page.locator('#diff-right #excerpt-end').count(), 1);
      assert.equal(await page.textContent('#diff-right'), story.text);  // the marks add no text
      await shoot(page, 'detail-excerpt');
    } finally {
      assert.equal((await api(server.base, 'DELETE', '/v1/documents/wanbao-0001')).status, 200);
    }
  });

  it('shows markup in documents as text', async () => {
    const xss = byId.get('xss-1');
    await page.goto(`${server.base}/`);
    await rows(page);
    const row = '#stories .story[data-cluster="xss-1"]';
    assert.equal(await page.textContent(`${row} .story-title`), xss.meta.title);
    assert.equal(await page.textContent(`${row} .outlet`), xss.meta.source);
    await page.click(`${row} .story-title`);
    await page.waitForSelector('#doc-text');
    assert.equal(await page.textContent('#doc-title'), xss.meta.title);
    assert.equal(await page.textContent('#doc-text'), xss.text);
    assert.equal(await page.evaluate(() => window.__xss), undefined);
    assert.equal(await page.locator('#view img, #view script, #view b').count(), 0);
    assert.equal(await page.evaluate(() => document.cookie), '');
  });

  it('shows the status page and answers a pasted text', async () => {
    await page.goto(`${server.base}/#/status`);
    await page.waitForFunction(() => document.querySelector('#stat-documents')?.textContent === '13');
    assert.equal(await page.textContent('#stat-clusters'), '6');
    assert.equal(await page.textContent('#stat-ttl'), 'never');
    assert.match(await page.textContent('#stat-disk'), /(B|KiB|MiB)$/);
    // Rates need two samples of /metrics.
    await page.waitForFunction(() => /docs\/s$/.test(document.querySelector('#stat-ingest').textContent));
    assert.match(await page.textContent('#stat-query'), /queries\/s$/);

    await page.fill('#paste', byId.get('courier-88').text);
    await page.click('#paste-submit');
    await page.waitForSelector('#paste-verdict');
    assert.match(await page.textContent('#paste-verdict'), /join a story of 3 articles/);
    assert.equal(await page.getAttribute('#paste-story', 'href'), '#/doc/gazette-551');
    assert.equal(await page.textContent('#paste-story'), byId.get('gazette-551').meta.title);
    const matches = await page.$$eval('#paste-result .matches li', (els) => els.map((e) => e.textContent));
    assert.equal(matches.length, 3);
    assert.ok(matches.some((m) => m.startsWith('Valley Courier Record turnout')));
    await shoot(page, 'status');
  });

  it('logged no errors (no CSP violation, no exception)', () => {
    assert.deepEqual(errors, []);
  });
});

describe('console with --token-file', () => {
  let server;
  const TOKEN = 'desk-token-7f3a';

  before(async () => {
    dirs.push(tempDir('token'));
    const file = path.join(dirs.at(-1), 'token');
    fs.writeFileSync(file, `${TOKEN}\n`);
    server = await serve(['--store-text', '--ttl', '0', '--token-file', file]);
    const r = await api(server.base, 'POST', '/v1/documents', byId.get('gazette-551'), TOKEN);
    assert.equal(r.status, 201);
  });

  it('serves the page without a token but not the data', async () => {
    assert.equal((await api(server.base, 'GET', '/')).status, 200);
    assert.equal((await api(server.base, 'GET', '/v1/clusters')).status, 401);
  });

  it('asks for the token, refuses a wrong one and keeps the right one in sessionStorage', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${server.base}/`);
    await page.waitForSelector('#token-dialog[open]');
    await shoot(page, 'token');
    await page.keyboard.press('Escape');  // the prompt stays: nothing works without it
    assert.equal(await page.evaluate(() => document.querySelector('#token-dialog').open), true);
    await page.fill('#token-input', 'wrong');
    await page.click('#token-form button[type="submit"]');
    await page.waitForFunction(() =>
      document.querySelector('#token-dialog').open &&
      /not accepted/.test(document.querySelector('#token-message').textContent));
    await page.fill('#token-input', TOKEN);
    await page.click('#token-form button[type="submit"]');
    await waitForRows(page, ['gazette-551']);
    assert.equal(await page.evaluate(() => sessionStorage.getItem('neardup.token')), TOKEN);
    assert.equal(await page.evaluate(() => document.cookie), '');
    // A new tab starts without the token.
    const other = await browser.context.newPage();
    await other.goto(`${server.base}/`);
    await other.waitForSelector('#token-dialog[open]');
    await other.close();
    await page.close();
  });
});
