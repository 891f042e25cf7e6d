// View 6: `ncclx env` for this node in the chosen format; a key writes it to a file.
// Long lines are never cut: they scroll sideways in place (← →), with ◀ ▶
// where text is out of view; f / F change the format.

import { Text } from 'ink';
import { useMemo } from 'react';
import type { DoctorRun } from '../../model/doctor/types.js';
import { envPlan } from '../../model/advice/env-plan.js';
import { ENV_FORMATS, type EnvFormat } from '../../report/env-formats.js';
import { envHeader, envText as renderEnv, type EnvText } from '../../report/env-text.js';
import { useCapture, useColor, useKeys, usePersisted } from '../screen.js';
import { hband, hstep, width as textWidth } from '../text.js';
import { Fill, HLine, Line, position, Title } from '../ui.js';
import { visible } from '../../report/display.js';
import { maxOf } from '../../model/list.js';

const FILE_NAME: Record<EnvFormat, string> = {
  bash: 'nccl-env.sh',
  fish: 'nccl-env.fish',
  dotenv: 'nccl.env',
  json: 'nccl-env.json',
  'nccl-conf': 'nccl.conf',
  k8s: 'nccl-env.yaml',
};

/** What `ncclx env --format F` prints for this run (report/env-text.ts renders it). */
export function envText(run: DoctorRun, format: EnvFormat, debug: boolean): EnvText {
  const ctx = run.context;
  return renderEnv(envPlan(ctx, { debug }), envHeader(ctx), format);
}

export interface EnvProps {
  run: DoctorRun;
  height: number;
  width: number;
  active: boolean;
  writeFile: (path: string, text: string) => void;
}

export function EnvView({ run, height, width, active, writeFile }: EnvProps) {
  const c = useColor();
  const [fi, setFi] = usePersisted('env.format', 0);
  const [debug, setDebug] = usePersisted('env.debug', false);
  const [scroll, setScroll] = usePersisted('env.scroll', 0);
  const [hoff, setHoff] = usePersisted('env.hoff', 0);
  const [naming, setNaming] = usePersisted<string | null>('env.filename', null);
  const [msg, setMsg] = usePersisted<{ text: string; ok: boolean } | null>('env.message', null);
  useCapture('env', active && naming !== null);
  const format = ENV_FORMATS[fi]!;
  // envPlan builds the IB model again: once per format and --debug, not per keystroke.
  const out = useMemo(() => envText(run, format, debug), [run, format, debug]);
  const lines = (out.error ? [`cannot write ${format}: ${out.error}`] : out.body.replace(/\n$/, '').split('\n')).concat(out.summary.map((s) => `# ${s}`)).map((l) => visible(l));
  const band = hband(Math.max(0, maxOf(lines.map(textWidth))), width);

  useKeys((input, key) => {
    if (naming !== null) {
      if (key.escape) setNaming(null);
      else if (key.return) {
        const path = naming.trim();
        setNaming(null);
        if (!path) return;
        try {
          writeFile(path, out.body);
          setMsg({ text: `wrote ${format} to ${path}`, ok: true });
        } catch (e) {
          setMsg({ text: `could not write ${path}: ${e instanceof Error ? e.message : String(e)}`, ok: false });
        }
      } else if (key.backspace || key.delete) setNaming(naming.slice(0, -1));
      else if (key.ctrl && input === 'u') setNaming('');
      else if (input && !key.ctrl && !key.meta) setNaming(naming + input.replace(/[\r\n\t]/g, ''));
      return;
    }
    if (input === 'F' || input === 'f') {
      setFi((fi + (input === 'F' ? ENV_FORMATS.length - 1 : 1)) % ENV_FORMATS.length);
      setScroll(0);
      setHoff(0);
      setMsg(null);
    } else if (key.leftArrow || input === 'h') setHoff(hstep(band, hoff, -1));
    else if (key.rightArrow || input === 'l') setHoff(hstep(band, hoff, 1));
    else if (input === 'd') setDebug(!debug);
    else if (input === 'w' && !out.error) {
      setMsg(null);
      setNaming(FILE_NAME[format]);
    } else if (key.upArrow || input === 'k') setScroll((s) => Math.max(0, s - 1));
    else if (key.downArrow || input === 'j') setScroll((s) => s + 1);
    else if (key.pageUp) setScroll((s) => Math.max(0, s - (height - 4)));
    else if (key.pageDown) setScroll((s) => s + (height - 4));
  }, active);

  const body = height - 3;
  const note = [position(lines.length, body, Math.max(0, Math.min(scroll, lines.length - body))), debug ? 'with --debug' : ''].filter(Boolean).join(' · ');
  const allFit = 'ncclx env --format '.length + ENV_FORMATS.reduce((n, f) => n + f.length + 2, 0) + (note ? note.length + 1 : 0) <= width;
  const start = Math.max(0, Math.min(scroll, lines.length - body));
  return (
    <Fill height={height}>
      <Title note={[position(lines.length, body, start), debug ? 'with --debug' : ''].filter(Boolean).join(' · ') || undefined}>
        ncclx env --format{' '}
        {/* Every format when they fit, else the current one (f / F go through them). */}
        {(allFit ? ENV_FORMATS : [format]).map((f) => (
          <Text key={f} inverse={f === format} color={f === format ? c('cyan') : undefined} bold={f === format} dimColor={f !== format}>
            {` ${f} `}
          </Text>
        ))}
        {allFit ? '' : <Text dimColor> f/F</Text>}
      </Title>
      {lines.slice(start, start + body).map((l, i) => (
        <HLine key={i} dim={l.startsWith('#')} body={[{ text: l }]} band={band} off={hoff} />
      ))}
      <Text> </Text>
      {naming !== null ? (
        <Text wrap="truncate-end">
          Write to: <Text underline>{visible(naming)}▏</Text> <Text dimColor>Enter write · Esc cancel</Text>
        </Text>
      ) : msg ? (
        <Line color={msg.ok ? c('green') : c('red')}>{msg.text}</Line>
      ) : (
        <Line dim>w writes this to a file · the what-if view (4) does not change it</Line>
      )}
    </Fill>
  );
}
