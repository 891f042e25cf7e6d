// Terminal size (follows resize events), colour on/off, per-view state that
// survives switching views, and which component currently owns the keyboard.

import { useInput, useStdout, type Key } from 'ink';
import { createContext, useCallback, useContext, useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { append } from '../model/list.js';

export interface Screen {
  cols: number;
  rows: number;
  color: boolean;
}

const ScreenContext = createContext<Screen>({ cols: 80, rows: 24, color: false });

/** `size` pins the dimensions (tests); otherwise they follow stdout and its resize events. */
export function ScreenProvider({ size, color, children }: { size?: { cols: number; rows: number }; color: boolean; children: ReactNode }) {
  const { stdout } = useStdout();
  const read = () => ({ cols: stdout.columns || 80, rows: stdout.rows || 24 });
  const [dims, setDims] = useState(read);
  useEffect(() => {
    if (size) return;
    const onResize = () => setDims(read());
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [stdout, size]);
  const s = size ?? dims;
  return <ScreenContext.Provider value={{ cols: s.cols, rows: s.rows, color }}>{children}</ScreenContext.Provider>;
}

export const useScreen = (): Screen => useContext(ScreenContext);

export type ColorName = 'green' | 'yellow' | 'red' | 'magenta' | 'cyan' | 'blue' | 'gray';

/** A colour name when colour is on, else undefined (NO_COLOR, --no-color). */
export function useColor(): (c: ColorName) => ColorName | undefined {
  const { color } = useScreen();
  return (c) => (color ? c : undefined);
}

// ---- state that outlives a view's unmount (switching views keeps the cursor) ----

const StoreContext = createContext<Map<string, unknown>>(new Map());

export function StoreProvider({ children }: { children: ReactNode }) {
  const store = useRef(new Map<string, unknown>());
  return <StoreContext.Provider value={store.current}>{children}</StoreContext.Provider>;
}

export function usePersisted<T>(key: string, initial: T | (() => T)): [T, (v: T | ((old: T) => T)) => void] {
  const store = useContext(StoreContext);
  const [value, setLocal] = useState<T>(() => {
    if (store.has(key)) return store.get(key) as T;
    const v = typeof initial === 'function' ? (initial as () => T)() : initial;
    store.set(key, v);
    return v;
  });
  const set = useCallback(
    (v: T | ((old: T) => T)) => {
      const next = typeof v === 'function' ? (v as (old: T) => T)(store.get(key) as T) : v;
      store.set(key, next);
      setLocal(next);
    },
    [store, key],
  );
  return [value, set];
}

// ---- keyboard ownership: a view that edits text takes every key but Ctrl-C ----

const CaptureContext = createContext<(owner: string, on: boolean) => void>(() => {});
export const CaptureProvider = CaptureContext.Provider;

/** While `on`, the app's global keys (Tab, digits, ?, q) are not handled. */
export function useCapture(owner: string, on: boolean) {
  const set = useContext(CaptureContext);
  // A layout effect: the flag is in place before the next key is read.
  useLayoutEffect(() => {
    set(owner, on);
    return () => set(owner, false);
  }, [set, owner, on]);
}

// ---- keys: one Ink input listener (the App's), dispatching to the views ----
//
// Ink subscribes each useInput in a passive effect, which can run after the
// frame is already on screen: a key typed at once (tmux send-keys, a test)
// would be lost. Views register here in a layout effect instead, and the App's
// single listener, mounted while the node is still being read, calls them.

export type KeyHandler = (input: string, key: Key) => void;
type Registered = { fn: { current: KeyHandler }; active: { current: boolean } };

const KeysContext = createContext<Set<Registered>>(new Set());
export const KeysProvider = KeysContext.Provider;

/** The view's key handler; always the newest closure, so keys that arrive together each see the previous one's state. */
export function useKeys(handler: KeyHandler, active = true) {
  const registry = useContext(KeysContext);
  const fn = useRef(handler);
  fn.current = handler;
  const isActive = useRef(active);
  isActive.current = active;
  useLayoutEffect(() => {
    const entry: Registered = { fn, active: isActive };
    registry.add(entry);
    return () => {
      registry.delete(entry);
    };
  }, [registry]);
}

/**
 * The App's listener: every registered view handler, then the global keys.
 * Keys that arrive in one read (a held arrow key, tmux send-keys, a paste of
 * several sequences) come out of Ink one after another before React renders,
 * so each would act on the state the first one started from. Each key here
 * therefore waits until the previous key's changes are committed: a key bumps
 * a counter in the App, and the App's commit releases the next key.
 */
export function useKeyDispatch(global: KeyHandler): Set<Registered> {
  const registry = useRef(new Set<Registered>()).current;
  const g = useRef(global);
  g.current = global;
  const queue = useRef<[string, Key][]>([]);
  const busy = useRef(false);
  const [tick, setTick] = useState(0);
  const next = useCallback(() => {
    const k = queue.current.shift();
    if (!k) {
      busy.current = false;
      return;
    }
    busy.current = true;
    for (const r of [...registry]) if (r.active.current) r.fn.current(k[0], k[1]);
    g.current(k[0], k[1]);
    setTick((t) => t + 1);
  }, [registry]);
  // After the commit that carries a key's changes, the next key (outside the commit phase).
  useLayoutEffect(() => {
    if (busy.current) setImmediate(next);
  }, [tick, next]);
  useInput(
    useCallback(
      (input: string, key: Key) => {
        append(queue.current, splitKeys(input, key));
        if (!busy.current) next();
      },
      [next],
    ),
  );
  return registry;
}

const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

/**
 * Ink hands over a read of plain characters as one input ("=eno1" typed fast,
 * a paste, or "x3" when two keys arrive together). Every character is a key
 * of its own here — "3" must still switch views after "x" closed the help —
 * and Enter, Tab, Backspace and Ctrl-letters inside such a run are those keys.
 */
export function splitKeys(input: string, key: Key): [string, Key][] {
  const chars = Array.from(input);
  if (chars.length <= 1 || key.ctrl || key.meta) return [[input, key]];
  return chars.map((ch): [string, Key] => {
    if (ch === '\r' || ch === '\n') return ['\r', { ...NO_KEY, return: true }];
    if (ch === '\t') return ['', { ...NO_KEY, tab: true }];
    if (ch === '\x7f' || ch === '\b') return ['', { ...NO_KEY, backspace: true }];
    // Ctrl-A … Ctrl-Z (Ctrl-U clears a field) as Ink reports them alone: the letter, with ctrl.
    const code = ch.charCodeAt(0);
    if (code >= 1 && code <= 26) return [String.fromCharCode(code + 96), { ...NO_KEY, ctrl: true }];
    return [ch, { ...NO_KEY, shift: /[A-Z]/.test(ch) }];
  });
}
