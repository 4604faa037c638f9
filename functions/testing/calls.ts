/**
 * @module Records every AWS SDK command sent while a named function runs: the clients' shared `send`
 * (the smithy `Client` every SDK client extends) is wrapped, so clients a handler builds itself are
 * recorded too. Calls made outside `as(...)` (a test's own setup and checks) are not recorded.
 */

export interface RecordedCall {
  /** The function the call was made for (its component's name in sst.config.ts). */
  fn: string;
  /** The command's class name, e.g. `ListObjectsV2Command`. */
  command: string;
  input: Record<string, unknown>;
}

type Send = (this: unknown, command: { input?: unknown }, ...rest: unknown[]) => unknown;

export function recordAwsCalls(clientClasses: { prototype: object }[]) {
  const calls: RecordedCall[] = [];
  let current: string | undefined;
  const owners = new Set<{ send: Send }>();
  for (const cls of clientClasses) {
    let proto: object | null = cls.prototype;
    while (proto && !Object.hasOwn(proto, "send")) proto = Object.getPrototypeOf(proto);
    if (!proto) throw new Error("an SDK client class without send");
    owners.add(proto as { send: Send });
  }
  const originals = new Map<{ send: Send }, Send>();
  for (const owner of owners) {
    const original = owner.send;
    originals.set(owner, original);
    owner.send = function (this: unknown, command, ...rest) {
      if (current !== undefined)
        calls.push({
          fn: current,
          command: command.constructor.name,
          input: (command.input ?? {}) as Record<string, unknown>,
        });
      return original.call(this, command, ...rest);
    };
  }
  return {
    calls,
    /** `handler` as `fn`: its calls are recorded under that name. One runs at a time. */
    as<F extends (...args: never[]) => Promise<unknown>>(fn: string, handler: F): F {
      return (async (...args: Parameters<F>) => {
        current = fn;
        try {
          return await handler(...args);
        } finally {
          current = undefined;
        }
      }) as F;
    },
    restore() {
      for (const [owner, original] of originals) owner.send = original;
    },
  };
}
