/**
 * @module `sst.config.ts` loaded with recording stand-ins for `$config`, `sst`, `aws` and the pulumi
 * helpers (the sst CLI cannot run here): every component it declares, with its arguments, and its outputs.
 * A deploy-time output stands in as text naming its path, e.g. `Results.arn` or `Site.nodes.bucket.arn`.
 */

export interface Recorded {
  type: string;
  name: string;
  args: Record<string, unknown>;
  subscriptions: { fn: Record<string, unknown>; options: unknown }[];
}

export interface LoadedSstConfig {
  components: Recorded[];
  outputs: Record<string, unknown>;
  /** The component named `name` (throws when there is none). */
  byName(name: string): Recorded;
  /** Every function with the name it is known by: `Subscribe`, `Schedule`, `SweepQueue`, `PublishQueue`. */
  functions(): { name: string; fn: Record<string, unknown> }[];
}

/** A deploy-time output: any property is another output; as text it names its path. */
function output(path: string): unknown {
  return new Proxy(() => {}, {
    get: (_t, prop) =>
      prop === Symbol.toPrimitive || prop === "toString"
        ? () => path
        : prop === "toJSON"
          ? () => path
          : output(`${path}.${String(prop)}`),
  });
}

/** A stand-in component class: `new` records the component and gives back a proxy of its outputs. */
function componentClass(type: string, components: Recorded[]) {
  return new Proxy(class {}, {
    construct: (_target, [name, args = {}]: [string, Record<string, unknown>?]) => {
      const record: Recorded = { type, name, args, subscriptions: [] };
      components.push(record);
      return new Proxy(
        {},
        {
          get: (_t, prop) =>
            prop === "subscribe"
              ? (fn: Record<string, unknown>, options: unknown) => record.subscriptions.push({ fn, options })
              : prop === "__record"
                ? record
                : output(`${name}.${String(prop)}`),
        },
      );
    },
  });
}

function namespace(prefix: string, components: Recorded[]): unknown {
  return new Proxy(
    {},
    {
      get: (_t, prop) =>
        /^[A-Z]/.test(String(prop))
          ? componentClass(`${prefix}.${String(prop)}`, components)
          : namespace(`${prefix}.${String(prop)}`, components),
    },
  );
}

/** The name of a linked component (`link: [table, results]` holds the stand-ins' proxies). */
export const linkName = (linked: unknown) => (linked as { __record: Recorded }).__record.name;

/**
 * Runs `sst.config.ts` with `env` set (KNEEBOARD_CONFIG at least) and the stand-ins as globals;
 * `stage` is what `$app.stage` says.
 */
/** A config of two targets, a swept in chat and rag, b in rag only: three sweeps a slot. */
export const THREE_SWEEPS_CONFIG = {
  targets: ["a", "b"].map((id) => ({
    id,
    label: id,
    baseURL: "https://example.com/v1",
    model: "m",
    route: { gateway: "direct" },
    ...(id === "b" ? { scenarios: ["rag"] } : {}),
  })),
  scenarios: { chat: {}, rag: { promptTokens: 4000 } },
};

export async function loadSstConfig(env: Record<string, string>, stage = "test"): Promise<LoadedSstConfig> {
  const components: Recorded[] = [];
  const g = globalThis as Record<string, unknown>;
  g.$config = (c: unknown) => c;
  g.$app = { name: "kneeboard", stage };
  g.sst = namespace("sst", components);
  g.aws = namespace("aws", components);
  g.$interpolate = (parts: TemplateStringsArray, ...values: unknown[]) =>
    parts.reduce((text, part, i) => text + part + (i < values.length ? String(values[i]) : ""), "");
  g.$jsonStringify = (value: unknown) => JSON.stringify(value);
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    // A computed path keeps the type checker out of sst.config.ts, whose globals only the sst CLI declares.
    const path = new URL("../../sst.config.ts", import.meta.url).href;
    const config = (await import(/* @vite-ignore */ path)).default as { run(): Promise<Record<string, unknown>> };
    const outputs = await config.run();
    const byName = (name: string) => {
      const found = components.find((c) => c.name === name);
      if (!found) throw new Error(`sst.config.ts declares no ${name}`);
      return found;
    };
    return {
      components,
      outputs,
      byName,
      functions: () =>
        components.flatMap((c) => [
          ...(c.type === "sst.aws.Function" ? [{ name: c.name, fn: c.args }] : []),
          ...(c.type === "sst.aws.CronV2" ? [{ name: c.name, fn: c.args.function as Record<string, unknown> }] : []),
          ...c.subscriptions.map((s) => ({ name: c.name, fn: s.fn })),
        ]),
    };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}
