// The layering check (scripts/check-layers.mjs) on the real tree, and proof that it can fail.
import { describe, expect, it } from 'vitest';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: a plain ES module of the repository's scripts, without type declarations
import { checkLayers, repoFiles } from '../scripts/check-layers.mjs';

type Violation = { file: string; import: string; why: string };
const check = checkLayers as (files: { path: string; source: string }[]) => Violation[];
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('layers', () => {
  it('the tree has no import that runs the wrong way', () => {
    expect(check((repoFiles as (r: string) => { path: string; source: string }[])(root))).toEqual([]);
  });

  it('names the file and the import of each deliberate violation', () => {
    const v = check([
      { path: 'src-main/shared/plan/x.ts', source: "import { readFileSync } from 'node:fs';\nimport { a } from '../../cli/main.js';" },
      { path: 'src-main/node/y.ts', source: "import { WorkerHost } from '../worker/host.js';" },
      { path: 'src-renderer/z.tsx', source: "import { app } from 'electron';\nimport { x } from '../src-main/app/service.js';" },
      { path: 'src-main/supervisor/w.ts', source: "export { f } from './fixtures-helper.test-util.js';" },
      { path: 'src-main/cli/ok.ts', source: "import { x } from '../shared/size.js';\nimport { y } from '../worker/run-once.js';" },
      { path: 'src-main/node/ok.test.ts', source: "import { x } from '../cli/main.js';" },
      { path: 'src-main/cli/z.ts', source: "import { run } from '../supervisor/fixtures/grow.mjs';" },
      { path: 'src-main/app/test-support/helpers.ts', source: '' },
      { path: 'src-main/app/cli-test-helpers.ts', source: '' },
      { path: 'src-main/app/ok.test-util.ts', source: "import { x } from '../cli/main.js';" },
      { path: 'src-renderer/components/x.tsx', source: "import { createMockApi } from '../dev/mock-api.js';" },
      { path: 'src-renderer/dev/ok.ts', source: "import { setApi } from '../api.js';\nimport { x } from '../../src-main/shared/size.js';" },
      { path: 'src-renderer/dev/bad.ts', source: "import { x } from '../../src-main/app/service.js';\nimport { readFileSync } from 'node:fs';" },
    ]);
    expect(v).toEqual([
      { file: 'src-main/shared/plan/x.ts', import: 'node:fs', why: 'src-main/shared may not import Node built-ins' },
      { file: 'src-main/shared/plan/x.ts', import: '../../cli/main.js', why: 'src-main/shared may not import src-main/cli' },
      { file: 'src-main/node/y.ts', import: '../worker/host.js', why: 'src-main/node may not import src-main/worker' },
      { file: 'src-renderer/z.tsx', import: 'electron', why: "src-renderer may not import 'electron'" },
      { file: 'src-renderer/z.tsx', import: '../src-main/app/service.js', why: 'src-renderer may not import src-main/app' },
      { file: 'src-main/supervisor/w.ts', import: './fixtures-helper.test-util.js', why: 'production code imports a test helper' },
      { file: 'src-main/cli/z.ts', import: '../supervisor/fixtures/grow.mjs', why: 'production code imports a test helper' },
      { file: 'src-main/app/test-support/helpers.ts', import: '', why: 'a test helper is named *.test-util.ts (beside its users); fixtures live in a fixtures/ folder' },
      { file: 'src-main/app/cli-test-helpers.ts', import: '', why: 'a test helper is named *.test-util.ts (beside its users); fixtures live in a fixtures/ folder' },
      { file: 'src-renderer/components/x.tsx', import: '../dev/mock-api.js', why: 'src-renderer may not import src-renderer/dev' },
      { file: 'src-renderer/dev/bad.ts', import: '../../src-main/app/service.js', why: 'src-renderer/dev may not import src-main/app' },
      { file: 'src-renderer/dev/bad.ts', import: 'node:fs', why: 'src-renderer/dev may not import Node built-ins' },
    ]);
  });
});
