// Who is at the other end of a loopback connection. Loopback is shared by every user of a machine: another user's
// program reached `bmad-mcp --http` and read and changed the project its owner's folder permissions kept from them
// (review 20). On Linux the kernel's socket table names each socket's owner; elsewhere there is none to ask.
import { readFile } from "node:fs/promises";
import type { Socket } from "node:net";

const checked = new WeakMap<Socket, Promise<string | undefined>>();

/** Why a connection is refused: its client is another user's (or cannot be told, where the system can tell), or
 *  undefined. Asked once per connection. */
export function otherUsersClient(socket: Socket): Promise<string | undefined> {
  let verdict = checked.get(socket);
  if (!verdict) checked.set(socket, (verdict = judge(socket)));
  return verdict;
}

async function judge(socket: Socket): Promise<string | undefined> {
  const me = process.getuid?.();
  if (me === undefined || socket.localPort === undefined || socket.remotePort === undefined) return undefined;
  const tables = await Promise.all(["/proc/net/tcp", "/proc/net/tcp6"].map((f) => readFile(f, "utf8").catch(() => undefined)));
  if (tables.every((t) => t === undefined)) return undefined; // not Linux: nothing to ask
  const owner = ownerOf(tables.join("\n"), socket.remotePort, socket.localPort);
  if (owner === me) return undefined;
  return owner === undefined
    ? "This server cannot tell whose program this connection comes from, and serves only its own user's."
    : "This connection comes from another user's program: bmad-mcp --http serves only the user who started it.";
}

/** The uid owning the socket whose own port is `port` and whose peer's is `peerPort`, from a /proc/net/tcp table
 *  (`sl local rem st tx:rx tr:when retrnsmt uid …`, addresses as HEXIP:HEXPORT). */
export function ownerOf(table: string, port: number, peerPort: number): number | undefined {
  for (const line of table.split("\n")) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 8 || !fields[1]?.includes(":")) continue;
    const portOf = (address: string) => parseInt(address.slice(address.lastIndexOf(":") + 1), 16);
    if (portOf(fields[1]) === port && portOf(fields[2]!) === peerPort) {
      const uid = Number(fields[7]);
      if (Number.isInteger(uid)) return uid;
    }
  }
  return undefined;
}
