"""The JavaScript project: `shipit-cli`, a Node release helper (bin, lib, node:test).
"""
from __future__ import annotations

from .fixtures import F


JS_FILES = {
    "package.json": F(r'''
{
  "name": "shipit-cli",
  "version": "0.9.2",
  "description": "Tiny release helper",
  "bin": {
    "shipit": "bin/shipit.js"
  },
  "scripts": {
    "test": "node --test test/"
  },
  "engines": {
    "node": ">=18"
  },
  "license": "MIT"
}
'''),
    "bin/shipit.js": F(r'''
#!/usr/bin/env node
'use strict';

const { loadConfig } = require('../lib/config');
const { createLogger } = require('../lib/logger');

async function main(argv) {
  const [command, ...rest] = argv;
  const config = loadConfig(process.cwd());
  const log = createLogger({ verbose: rest.includes('--verbose') });

  switch (command) {
    case 'version':
      console.log(require('../package.json').version);
      return 0;
    case 'release': {
      const bump = rest.find((a) => !a.startsWith('--')) || 'patch';
      log.info(`releasing ${config.name} (${bump})`);
      log.debug(`branch=${config.branch} remote=${config.remote}`);
      return 0;
    }
    default:
      console.error('usage: shipit <version|release> [patch|minor|major] [--verbose]');
      return 64;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err.stack || String(err));
    process.exit(1);
  },
);
'''),
    "lib/config.js": F(r'''
'use strict';

const fs = require('fs');
const path = require('path');

const DEFAULTS = Object.freeze({
  branch: 'main',
  remote: 'origin',
  tagPrefix: 'v',
  changelog: 'CHANGELOG.md',
});

function readJson(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

function loadConfig(cwd) {
  const pkg = readJson(path.join(cwd, 'package.json'));
  const rcPath = path.join(cwd, '.shipitrc.json');
  const rc = fs.existsSync(rcPath) ? readJson(rcPath) : {};
  const config = { ...DEFAULTS, ...(pkg.shipit || {}), ...rc, name: pkg.name };
  if (!/^[\w.-]+$/.test(config.branch)) {
    throw new Error(`invalid branch name: ${config.branch}`);
  }
  return config;
}

module.exports = { DEFAULTS, loadConfig };
'''),
    "lib/logger.js": F(r'''
'use strict';

function createLogger({ verbose = false, stream = process.stderr } = {}) {
  const write = (level, msg) => stream.write(`[${level}] ${msg}\n`);
  return {
    info: (msg) => write('info', msg),
    warn: (msg) => write('warn', msg),
    error: (msg) => write('error', msg),
    debug: (msg) => {
      if (verbose) {
        write('debug', msg);
      }
    },
  };
}

module.exports = { createLogger };
'''),
    "test/config.test.js": F(r'''
'use strict';

const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const test = require('node:test');

const { DEFAULTS, loadConfig } = require('../lib/config');

function tmpProject(pkg, rc) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shipit-'));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(pkg));
  if (rc) {
    fs.writeFileSync(path.join(dir, '.shipitrc.json'), JSON.stringify(rc));
  }
  return dir;
}

test('defaults apply', () => {
  const config = loadConfig(tmpProject({ name: 'demo' }));
  assert.strictEqual(config.branch, DEFAULTS.branch);
  assert.strictEqual(config.name, 'demo');
});

test('rc file wins over package.json', () => {
  const dir = tmpProject({ name: 'demo', shipit: { branch: 'dev' } }, { branch: 'release' });
  assert.strictEqual(loadConfig(dir).branch, 'release');
});

test('rejects odd branch names', () => {
  assert.throws(() => loadConfig(tmpProject({ name: 'x', shipit: { branch: 'a b' } })));
});
'''),
}
