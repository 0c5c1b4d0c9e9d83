import { readdirSync, readFileSync, readlinkSync } from "node:fs";

// Finding the workerd process a Miniflare instance spawned, to kill it (Linux: read from /proc). Miniflare keeps its
// child process private; what identifies ours among this process's children is the port its Worker answers on.

/** The `(comm)` and parent pid of a process, from `/proc/<pid>/stat`; null once it is gone. */
function readStat(pid: number): { comm: string; parentPid: number; state: string } | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after its last ")".
  const open = stat.indexOf("(");
  const close = stat.lastIndexOf(")");
  const [state = "", parentPid = "0"] = stat.slice(close + 2).split(" ");
  return { comm: stat.slice(open + 1, close), parentPid: Number(parentPid), state };
}

/** The socket inodes listening on `port` (IPv4 and IPv6), from `/proc/net/tcp*`. */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const columns = line.trim().split(/\s+/);
      const [, local = "", , state, , , , , , inode] = columns;
      const localPort = Number.parseInt(local.split(":").at(-1) ?? "", 16);
      // State 0A is LISTEN.
      if (localPort === port && state === "0A" && inode !== undefined) inodes.add(inode);
    }
  }
  return inodes;
}

/** The socket inodes a process holds open. */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  let descriptors: string[];
  try {
    descriptors = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const descriptor of descriptors) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${descriptor}`));
      if (match?.[1] !== undefined) inodes.add(match[1]);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/** The pids of this process's children named `comm`. */
function childrenNamed(comm: string): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      const stat = readStat(pid);
      return stat !== null && stat.comm === comm && stat.parentPid === process.pid;
    });
}

/**
 * The pid of the workerd process, a child of this process, that listens on `port` (a Miniflare instance's URL).
 * Throws when there is none, or off Linux (it reads `/proc`).
 */
export function findWorkerdProcess(port: number): number {
  if (process.platform !== "linux") {
    throw new Error(`Finding the workerd process reads /proc: Linux only (this is ${process.platform})`);
  }
  const listening = listeningInodes(port);
  const candidates = childrenNamed("workerd");
  const owner = candidates.find((pid) => [...socketInodes(pid)].some((inode) => listening.has(inode)));
  if (owner === undefined) {
    throw new Error(
      `No workerd child of process ${process.pid} listens on port ${port} (workerd children: ${candidates.join(", ") || "none"})`,
    );
  }
  return owner;
}

/** True while `pid` names a running process (a zombie, killed but not yet reaped, counts as gone). */
export function isProcessRunning(pid: number): boolean {
  const stat = readStat(pid);
  return stat !== null && stat.state !== "Z" && stat.state !== "X";
}
