"use client";

import { useEffect, useMemo, useRef, useSyncExternalStore } from "react";

/**
 * @internal `useSyncExternalStore` with a selector: the component re-renders only when the selected value changes
 * per `isEqual` (default `Object.is`). The selector may be a new function on every render; a selection equal to the
 * one rendered last is returned as that same value. (What React's `use-sync-external-store/with-selector` does,
 * without the extra package.)
 */
export function useStoreSelector<TSnapshot, TSelection>(
  subscribe: (listener: () => void) => () => void,
  getSnapshot: () => TSnapshot,
  selector: (snapshot: TSnapshot) => TSelection,
  isEqual: (left: TSelection, right: TSelection) => boolean = Object.is,
): TSelection {
  const rendered = useRef<{ value: TSelection } | null>(null);
  const getSelection = useMemo(() => {
    let memo: { snapshot: TSnapshot; selection: TSelection } | null = null;
    return () => {
      const snapshot = getSnapshot();
      if (memo && Object.is(memo.snapshot, snapshot)) return memo.selection;
      const next = selector(snapshot);
      const previous = memo ? { value: memo.selection } : rendered.current;
      const selection = previous && isEqual(previous.value, next) ? previous.value : next;
      memo = { snapshot, selection };
      return selection;
    };
  }, [getSnapshot, selector, isEqual]);
  const value = useSyncExternalStore(subscribe, getSelection, getSelection);
  useEffect(() => {
    rendered.current = { value };
  }, [value]);
  return value;
}
