// Who is at the other end of a loopback connection. Loopback is shared by every user of a machine: another user's
// program reached `bmad-mcp --http` and read and changed the project its owner's folder permissions kept from them
// (review 20). On Linux the kernel's socket table names each socket's owner; elsewhere there is none to ask.
import { readFile } from "node:fs/promises";
import type { Socket } from "node:net";

/** Only Linux has a socket table to ask (/proc/net/tcp); elsewhere any local user's program is served. */
const CAN_TELL_USERS = process.platform === "linux";

/** What --http says at startup where it cannot tell whose a connection is, or undefined where it can. */
export const untoldUsersWarning = (): string | undefined =>
  CAN_TELL_USERS ? undefined : `bmad-mcp: on ${process.platform} this server cannot tell which user's program connects: any local user of this machine can call its tools. Use the stdio bridge where others share this machine.\n`;

/** Why a connection is refused; `anotherUser` when its owner is known to be someone else (closed at once, unanswered),
 *  not when the owner cannot be told (its request is answered with the reason, which may be the owner's to fix). */
export interface PeerRefusal {
  message: string;
  anotherUser: boolean;
}

const checked = new WeakMap<Socket, Promise<PeerRefusal | undefined>>();

/** Why a connection is refused: its client is another user's (or cannot be told, where the system can tell), or
 *  undefined. Asked once per connection. */
export function otherUsersClient(socket: Socket): Promise<PeerRefusal | undefined> {
  let verdict = checked.get(socket);
  if (!verdict) checked.set(socket, (verdict = judge(socket)));
  return verdict;
}

async function judge(socket: Socket): Promise<PeerRefusal | undefined> {
  const me = process.getuid?.();
  const { localAddress, localPort, remoteAddress, remotePort } = socket;
  if (!CAN_TELL_USERS || me === undefined) return undefined; // nothing to ask: said at startup (untoldUsersWarning)
  if (!localAddress || !remoteAddress || localPort === undefined || remotePort === undefined) return refusalFor(me, undefined); // gone already
  // The client's own socket: from its address and port, to this server's (review 21: matched by ports alone, a
  // client bound to 127.0.0.2 and the server's port found the server's own socket, owned by its user). The kernel
  // lists its table in pieces, and a row can be passed over while other sockets open and close (a loaded test run
  // refused its own client once): read again before saying it cannot be told.
  let owner: number | Error | undefined;
  for (let read = 0; read < 3 && owner === undefined; read++) {
    const table = await sockets();
    owner = table instanceof Error ? table : ownerIn(table, { address: remoteAddress, port: remotePort }, { address: localAddress, port: localPort });
  }
  return refusalFor(me, owner);
}

/** Why a client is refused, from what the kernel's table said of it (its owner's uid, no single row, or the error that
 *  kept the table from being read), or undefined for the server's own user. A table that cannot be read tells nothing,
 *  so nobody is served (review 330: an EACCES taken for "not Linux" served another user's program). */
export function refusalFor(me: number, owner: number | Error | undefined): PeerRefusal | undefined {
  if (owner === me) return undefined;
  if (owner instanceof Error) {
    const message = `This server cannot read the kernel's socket table (${owner.message}) to tell whose program this connection comes from, and serves only its own user's: let the user running bmad-mcp --http read /proc/net/tcp and /proc/net/tcp6, or use the stdio bridge.`;
    return { message, anotherUser: false };
  }
  if (owner === undefined) return { message: "This server cannot tell whose program this connection comes from, and serves only its own user's.", anotherUser: false };
  return { message: "This connection comes from another user's program: bmad-mcp --http serves only the user who started it.", anotherUser: true };
}

/** The read of the kernel's tables under way, which every check waiting shares: read and parsed once for all of them
 *  (review 121: another user's 6,000 connections each read and split the whole table, which grew with them, and the
 *  bridge ran out of memory). A check that finds no row asks again, and then shares the next read. */
let reading: Promise<Map<string, number[]> | Error> | undefined;

/** The established sockets of both tables, or why neither could be read (a machine without IPv6 has no tcp6). */
function sockets(): Promise<Map<string, number[]> | Error> {
  reading ??= Promise.all(["/proc/net/tcp", "/proc/net/tcp6"].map((f) => readFile(f, "utf8").catch((error: Error) => error)))
    .then((tables) => {
      const read = tables.filter((t) => typeof t === "string");
      return read.length > 0 ? established(read.join("\n")) : (tables[0] as Error);
    })
    .finally(() => (reading = undefined));
  return reading;
}

interface End {
  address: string;
  port: number;
}

/** An address as /proc/net/tcp and /proc/net/tcp6 write it, each 32-bit word in the kernel's byte order (little-endian
 *  here): an IPv4 address both plain and mapped into IPv6, an IPv6 one ([::1], which --http serves too) as itself;
 *  none for what is neither. */
function procAddresses(address: string): string[] {
  const word = (hex: string) => hex.match(/../g)!.reverse().join("").toUpperCase();
  const v4 = /^(?:::ffff:)?(\d+)\.(\d+)\.(\d+)\.(\d+)$/i.exec(address);
  if (v4) {
    const hex = word(v4.slice(1, 5).map((b) => Number(b).toString(16).padStart(2, "0")).join(""));
    return [hex, `0000000000000000FFFF0000${hex}`];
  }
  const groups = ipv6Groups(address);
  return groups ? [groups.join("").match(/.{8}/g)!.map(word).join("")] : [];
}

/** An IPv6 address's eight groups, four hex digits each ("::" filled in); undefined for what is not one. */
function ipv6Groups(address: string): string[] | undefined {
  const halves = address.split("::");
  const [head, tail] = halves.map((h) => (h ? h.split(":") : []));
  if (halves.length > 2 || head!.length + (tail?.length ?? 0) > 8) return undefined;
  const groups = tail === undefined ? head! : [...head!, ...Array<string>(8 - head!.length - tail.length).fill("0"), ...tail];
  return groups.length === 8 && groups.every((g) => /^[0-9a-f]{1,4}$/i.test(g)) ? groups.map((g) => g.padStart(4, "0")) : undefined;
}

/** A /proc/net/tcp table's established sockets (`sl local rem st tx:rx tr:when retrnsmt uid …`, ends as
 *  HEXADDRESS:HEXPORT), by "own peer" ends: the uids owning each. */
function established(table: string): Map<string, number[]> {
  const owners = new Map<string, number[]>();
  for (const line of table.split("\n")) {
    const fields = line.trim().split(/\s+/);
    // Established only: a socket its program already closed shows uid 0, which a bridge run as root took for its own (review 22).
    if (fields.length < 8 || fields[3] !== "01") continue;
    const uid = Number(fields[7]);
    const key = `${fields[1]!.toUpperCase()} ${fields[2]!.toUpperCase()}`;
    if (Number.isInteger(uid)) owners.set(key, [...(owners.get(key) ?? []), uid]);
  }
  return owners;
}

/** The uid owning the one socket whose own end is `own` and whose peer is `peer`; undefined unless exactly one. */
function ownerIn(table: Map<string, number[]>, own: End, peer: End): number | undefined {
  const ends = (end: End) => procAddresses(end.address).map((a) => `${a}:${end.port.toString(16).toUpperCase().padStart(4, "0")}`);
  const owners = ends(own).flatMap((o) => ends(peer).flatMap((p) => table.get(`${o} ${p}`) ?? []));
  return owners.length === 1 ? owners[0] : undefined;
}

/** ownerOf over a table's text, as a test gives one. */
export const ownerOf = (table: string, own: End, peer: End): number | undefined => ownerIn(established(table), own, peer);
