// Shared bits of the engram command-line scripts: flags, base URL and auth header.
export function parseArgs(argv) {
  const positional = [];
  const flags = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith("--")) {
      const [key, inline] = a.slice(2).split("=", 2);
      flags[key] = inline ?? (argv[i + 1] && !argv[i + 1].startsWith("--") ? argv[++i] : "true");
    } else positional.push(a);
  }
  return { positional, flags };
}

export function endpoint(flags) {
  const base = (flags.url ?? process.env.ENGRAM_URL ?? "http://127.0.0.1:8787").replace(/\/+$/, "");
  const token = flags.token ?? process.env.ENGRAM_TOKEN;
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const context = flags.context ?? process.env.ENGRAM_CONTEXT ?? "default";
  return { base, headers, context };
}

export function die(message) {
  console.error(message);
  process.exit(1);
}
