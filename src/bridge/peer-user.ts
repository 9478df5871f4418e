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
  const { localAddress, localPort, remoteAddress, remotePort } = socket;
  if (me === undefined || !localAddress || !remoteAddress || localPort === undefined || remotePort === undefined) return undefined;
  // The client's own socket: from its address and port, to this server's (review 21: matched by ports alone, a
  // client bound to 127.0.0.2 and the server's port found the server's own socket, owned by its user). The kernel
  // lists its table in pieces, and a row can be passed over while other sockets open and close (a loaded test run
  // refused its own client once): read again before saying it cannot be told.
  let owner: number | undefined;
  for (let read = 0; read < 3 && owner === undefined; read++) {
    const tables = await Promise.all(["/proc/net/tcp", "/proc/net/tcp6"].map((f) => readFile(f, "utf8").catch(() => undefined)));
    if (tables.every((t) => t === undefined)) return undefined; // not Linux: nothing to ask
    owner = ownerOf(tables.join("\n"), { address: remoteAddress, port: remotePort }, { address: localAddress, port: localPort });
  }
  if (owner === me) return undefined;
  return owner === undefined
    ? "This server cannot tell whose program this connection comes from, and serves only its own user's."
    : "This connection comes from another user's program: bmad-mcp --http serves only the user who started it.";
}

interface End {
  address: string;
  port: number;
}

/** An IPv4 address as /proc/net/tcp writes it (each 32-bit word in the kernel's byte order: little-endian here), and
 *  as /proc/net/tcp6 writes it mapped into IPv6; undefined for other addresses. */
function procAddresses(address: string): string[] {
  const v4 = /^(?:::ffff:)?(\d+)\.(\d+)\.(\d+)\.(\d+)$/i.exec(address);
  if (!v4) return [];
  const hex = v4.slice(1, 5).reverse().map((b) => Number(b).toString(16).padStart(2, "0")).join("").toUpperCase();
  return [hex, `0000000000000000FFFF0000${hex}`];
}

/** The uid owning the one socket whose own end is `own` and whose peer is `peer`, from a /proc/net/tcp table
 *  (`sl local rem st tx:rx tr:when retrnsmt uid …`, ends as HEXADDRESS:HEXPORT); undefined unless exactly one row. */
export function ownerOf(table: string, own: End, peer: End): number | undefined {
  const ends = (end: End) => new Set(procAddresses(end.address).map((a) => `${a}:${end.port.toString(16).toUpperCase().padStart(4, "0")}`));
  const [ownEnds, peerEnds] = [ends(own), ends(peer)];
  const owners: number[] = [];
  for (const line of table.split("\n")) {
    const fields = line.trim().split(/\s+/);
    // Established only: a socket its program already closed shows uid 0, which a bridge run as root took for its own (review 22).
    if (fields.length < 8 || fields[3] !== "01" || !ownEnds.has(fields[1]!.toUpperCase()) || !peerEnds.has(fields[2]!.toUpperCase())) continue;
    const uid = Number(fields[7]);
    if (Number.isInteger(uid)) owners.push(uid);
  }
  return owners.length === 1 ? owners[0] : undefined;
}
