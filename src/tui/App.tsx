// The interactive doctor: reads the node once (with progress), then shows six
// views over that one snapshot. Global keys live here; each view owns its own.

import { Box, Text, useApp, useStdout } from 'ink';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { writeFileSync } from 'node:fs';
import type { Check, CheckOptions } from '../model/doctor/types.js';
import type { NodeSnapshot } from '../model/snapshot/types.js';
import type { FixApi } from './fix-api.js';
import { clipboardReport, type ClipboardReport } from './clipboard.js';
import { Footer } from './Footer.js';
import { Header, LoadingHeader } from './Header.js';
import { Help } from './Help.js';
import { FOOTER, VIEWS, type ViewId } from './keys.js';
import { activeWhatIf, ModelCache, WHATIF_KEYS, type Model, type NodeSource, type WhatIf } from './model.js';
import { Progress, type ProgressState } from './Progress.js';
import { CaptureProvider, KeysProvider, ScreenProvider, StoreProvider, useKeyDispatch, useScreen } from './screen.js';
import { Tabs } from './Tabs.js';
import { EnvView } from './views/Env.js';
import { FixesView } from './views/Fixes.js';
import { InterfacesView } from './views/Interfaces.js';
import { RdmaView } from './views/Rdma.js';
import { SummaryView } from './views/Summary.js';
import { TopoView } from './views/Topo.js';
import { WhatIfView } from './views/WhatIf.js';

export interface AppProps {
  /** Reads the node (or loads the snapshot), reporting each step. Called once. */
  load: (onStep: (what: string) => void) => Promise<NodeSnapshot>;
  checks: Check[];
  options: CheckOptions;
  source: NodeSource;
  color: boolean;
  /** Fixed dimensions (tests); otherwise the terminal's, following resizes. */
  size?: { cols: number; rows: number };
  /** The fix library; tests pass a fake. */
  fixApi?: () => Promise<FixApi>;
  /** Copies text to the clipboard and may say where it went (a ClipboardReport); default: OSC 52 to the terminal, then ask tmux when inside it. */
  copy?: (text: string) => unknown;
  writeFile?: (path: string, text: string) => void;
  /** The node's model once computed (the exit code comes from it). */
  onReady?: (base: Model) => void;
  /** Reading the node failed: the caller reports it like the plain report would. */
  onError?: (e: unknown) => void;
  /** The first view (tests). */
  initialView?: ViewId;
}

/** OSC 52: the terminal (and tmux with set-clipboard on) puts the text on the clipboard. */
export function osc52(text: string): string {
  return `\x1b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\x07`;
}

export function App(props: AppProps) {
  return (
    <ScreenProvider color={props.color} {...(props.size ? { size: props.size } : {})}>
      <StoreProvider>
        <Main {...props} />
      </StoreProvider>
    </ScreenProvider>
  );
}

function Main({ load, checks, options, source, fixApi, copy, writeFile, onReady, onError, initialView }: AppProps) {
  const { exit } = useApp();
  const { stdout } = useStdout();
  const { cols, rows } = useScreen();
  const [progress, setProgress] = useState<ProgressState>({ done: [], current: source.kind === 'snapshot' ? `loading ${source.path}` : 'starting' });
  const [cache, setCache] = useState<ModelCache | null>(null);
  const [view, setView] = useState<ViewId>(initialView ?? 'summary');
  const [help, setHelp] = useState(false);
  const [whatIf, setWhatIf] = useState<WhatIf>({});
  const [fixes, setFixes] = useState<{ api: FixApi | null; error?: string } | null>(null);
  const captured = useRef(new Set<string>());
  const setCapture = useCallback((owner: string, on: boolean) => {
    if (on) captured.current.add(owner);
    else captured.current.delete(owner);
  }, []);

  // Read the node once.
  useEffect(() => {
    let last = performance.now();
    let current = progress.current;
    const step = (what: string) => {
      const now = performance.now();
      const finished = current;
      setProgress((p) => ({ done: [...p.done, { what: finished, ms: now - last }], current: what }));
      current = what;
      last = now;
    };
    load(step)
      .then(async (snapshot) => {
        step(`running ${checks.length} checks`);
        await new Promise<void>((r) => setImmediate(r));
        const c = new ModelCache({ snapshot, checks, options, source });
        const base = c.get({});
        onReady?.(base);
        setCache(c);
      })
      .catch((e: unknown) => {
        if (onError) onError(e);
        else exit(e instanceof Error ? e : new Error(String(e)));
      });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // The fix library is loaded when the Fixes view is first shown.
  useEffect(() => {
    if (view !== 'fixes' || fixes) return;
    (fixApi ?? (() => Promise.reject(new Error('fixes are not available here'))))()
      .then((api) => setFixes({ api }))
      .catch((e: unknown) => setFixes({ api: null, error: e instanceof Error ? e.message : String(e) }));
  }, [view, fixes, fixApi]);

  const base = useMemo(() => cache?.get({}) ?? null, [cache]);
  const current = useMemo(() => (cache ? cache.get(whatIf) : null), [cache, whatIf]);

  const keys = useKeyDispatch((input, key) => {
    // Ink quits on a Ctrl-C read alone; one that arrives in a burst with other keys is split out here.
    if (key.ctrl && input === 'c') {
      exit();
      return;
    }
    if (help) {
      setHelp(false);
      if (input === 'q') exit();
      return;
    }
    if (captured.current.size > 0) return;
    if (input === 'q') exit();
    else if (input === '?') setHelp(true);
    else if (key.tab) {
      const i = VIEWS.indexOf(view);
      setView(VIEWS[(i + (key.shift ? VIEWS.length - 1 : 1)) % VIEWS.length]!);
    } else if (/^[1-9]$/.test(input) && Number(input) <= VIEWS.length) setView(VIEWS[Number(input) - 1]!);
  });

  const doCopy = useCallback(
    async (text: string): Promise<ClipboardReport> => {
      if (copy) {
        const r = await copy(text);
        return r && typeof r === 'object' && 'via' in r ? (r as ClipboardReport) : { via: 'terminal' };
      }
      stdout.write(osc52(text));
      return clipboardReport(process.env);
    },
    [copy, stdout],
  );
  const doWrite = writeFile ?? ((path: string, text: string) => writeFileSync(path, text));

  if (cols < 40 || rows < 12) {
    return (
      <Box width={cols} height={rows - 1}>
        <Text wrap="truncate-end">
          Terminal too small ({cols}×{rows}); ncclx needs 40×12 (80×24 is comfortable). q quits.
        </Text>
      </Box>
    );
  }

  const height = rows - 1;
  const bodyHeight = height - 5;
  if (!base || !current) {
    return (
      <Box flexDirection="column" width={cols} height={height}>
        <LoadingHeader source={source} />
        <Tabs active={view} />
        <Progress state={progress} height={bodyHeight} />
        <Footer hint="reading…" />
      </Box>
    );
  }

  const active = !help;
  const banner = activeWhatIf(whatIf)
    ? `what-if: ${WHATIF_KEYS.filter((k) => whatIf[k] !== undefined)
        .map((k) => `${k === 'version' ? 'NCCL' : k}=${whatIf[k] === '' ? (k === 'version' ? 'detected' : 'unset') : whatIf[k]}`)
        .join(', ')} (4: edit, R resets)`
    : null;
  const body = (() => {
    if (help) return <Help view={view} height={bodyHeight} width={cols} />;
    switch (view) {
      case 'summary':
        return <SummaryView run={base.run} height={bodyHeight} width={cols} active={active} />;
      case 'interfaces':
        return <InterfacesView report={current.explain} height={bodyHeight} width={cols} active={active} banner={banner} />;
      case 'rdma':
        return <RdmaView ib={current.ib} snapshot={current.run.context.snapshot} height={bodyHeight} width={cols} active={active} banner={banner} />;
      case 'whatif':
        return <WhatIfView base={base} current={current} whatIf={whatIf} setWhatIf={setWhatIf} height={bodyHeight} width={cols} active={active} copy={doCopy} />;
      case 'fixes':
        return fixes ? (
          <FixesView api={fixes.api} {...(fixes.error ? { unavailable: fixes.error } : {})} run={base.run} source={source} height={bodyHeight} width={cols} active={active} />
        ) : (
          <Box height={bodyHeight}>
            <Text dimColor>Loading the fix planner…</Text>
          </Box>
        );
      case 'env':
        return <EnvView run={base.run} height={bodyHeight} width={cols} active={active} writeFile={doWrite} />;
      case 'topo':
        return <TopoView report={current.topo} height={bodyHeight} width={cols} active={active} banner={banner} />;
    }
  })();
  return (
    <KeysProvider value={keys}>
      <CaptureProvider value={setCapture}>
        <Box flexDirection="column" width={cols} height={height}>
          <Header model={base} source={source} />
          <Tabs active={view} marks={banner ? { whatif: '*' } : {}} />
          {body}
          <Footer hint={help ? 'any key closes the help' : FOOTER[view]} />
        </Box>
      </CaptureProvider>
    </KeysProvider>
  );
}
