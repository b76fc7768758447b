import { saveTrace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { importFixture } from '../test-support.ts';
import { executableName } from './process-name.ts';

describe('process names from command lines', () => {
  it("keeps the executable's base name, never an argument", () => {
    const cases: [string, string][] = [
      ['python3', 'python3'],
      ['/usr/bin/python3', 'python3'],
      ['python3 train.py --token=SECRET', 'python3'],
      ['/usr/bin/python3 -u train.py --lr 0.1', 'python3'],
      ['"/opt/my env/bin/python3" train.py --x', 'python3'],
      ["'/opt/my env/bin/python3' train.py", 'python3'],
      ['"/opt/my env/bin/python3"', 'python3'],
      ['"/opt/my env/bin/python3 train.py', 'python3 train.py'], // no closing quote: all quoted
      ['  ./run.sh --fast ', 'run.sh'],
      ['"C:\\Program Files\\app\\trainer.exe" --epochs 3', 'trainer.exe'],
      ['C:\\tools\\trainer.exe', 'trainer.exe'],
      // kernel threads: slashes without a path or arguments are part of the name
      ['kworker/0:1', 'kworker/0:1'],
      ['irq/46-nvidia', 'irq/46-nvidia'],
      ['', ''],
    ];
    for (const [command, name] of cases) {
      expect([command, executableName(command)]).toEqual([command, name]);
    }
  });

  for (const file of ['nsys/handmade/ddp-2gpu.json', 'nsys/handmade/ddp-2gpu.sqlite']) {
    it(`names the processes of ${file}, whose export holds whole command lines, by executable`, async () => {
      const { trace } = await importFixture(file);
      // rank 0: /usr/bin/python3 -u train.py …; rank 1: '/opt/conda envs/ddp/bin/python3' -u …
      expect(trace.processes.map((p) => [p.pid, p.name])).toEqual([
        [2001, 'python3'],
        [2002, 'python3'],
      ]);
      const saved = new TextDecoder().decode(saveTrace(trace));
      expect(saved).not.toMatch(/SECRET|--local-rank|train\.py|conda envs/);
    });
  }
});
