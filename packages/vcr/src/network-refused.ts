import { spawnSync } from "node:child_process";

/**
 * The command line that runs `command` with the network refused, to prove that a replay needs none:
 * in a new user and network namespace (`unshare -rn`, Linux, no root needed) whose only interface is
 * loopback, brought up so that a replay's loopback model server still answers. Everything else (the
 * API, DNS, a proxy) is unreachable, as on an offline CI machine. Check canRefuseNetwork() first.
 */
export function networkRefused(command: readonly string[]): string[] {
  if (command.length === 0) throw new Error("networkRefused: name the command to run");
  // `exec "$0" "$@"` runs the command as given, with no second round of shell quoting.
  return ["unshare", "-rn", "sh", "-c", 'ip link set lo up && exec "$0" "$@"', ...command];
}

let available: boolean | undefined;

/**
 * Whether networkRefused works here: `unshare` exists, unprivileged user namespaces are allowed, and
 * loopback can be brought up inside one (`ip`, from iproute2). Asked once per process.
 */
export function canRefuseNetwork(): boolean {
  available ??=
    spawnSync("unshare", ["-rn", "sh", "-c", "ip link set lo up"], { timeout: 10_000 }).status === 0;
  return available;
}
