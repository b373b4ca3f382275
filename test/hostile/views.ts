/**
 * Hostile byte arguments for the hostile-input suite: every kind of value a
 * caller can build that looks like a Uint8Array, or is one whose properties
 * lie, each laid out in the middle of an ArrayBuffer with guard bytes on
 * both sides so that a read or write past the view shows.
 *
 * A kind makes, from the bytes the argument should hold, the hostile value
 * and what the library must do with it:
 * - "accept": it is a genuine Uint8Array view; the call must give the same
 *   result (and leave the same bytes) as the call on a plain copy of the
 *   bytes the engine says the view covers (`genuine()`),
 * - "type": not a genuine Uint8Array (Proxy, look-alike, another typed
 *   array with Uint8Array's prototype): TypeError "<name> must be a Uint8Array",
 * - "detached": a view of a detached ArrayBuffer: TypeError
 *   "<name> is a view of a detached ArrayBuffer".
 *
 * Everything here reads views through the intrinsic getters captured when
 * this module loads (before any test patches a prototype), never through a
 * view's own properties.
 */
import { Buffer } from "node:buffer";
import vm from "node:vm";

/* ------------------------------------------------------------------------ */
/* The engine's view of a typed array                                       */

const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype) as object;
function intrinsicGetter(key: PropertyKey): (this: unknown) => unknown {
  return Object.getOwnPropertyDescriptor(TypedArrayPrototype, key)!.get! as (this: unknown) => unknown;
}
const lengthOf = intrinsicGetter("length");
const byteOffsetOf = intrinsicGetter("byteOffset");
const bufferOf = intrinsicGetter("buffer");
const tagOf = intrinsicGetter(Symbol.toStringTag);

/** Whether `value` is a genuine Uint8Array (of any realm, whatever its prototype). */
export function isGenuineBytes(value: unknown): value is Uint8Array {
  return tagOf.call(value) === "Uint8Array";
}

/** A plain Uint8Array over the bytes the engine says the genuine Uint8Array `value` covers. */
export function engineView(value: Uint8Array): Uint8Array {
  const buffer = bufferOf.call(value) as ArrayBuffer;
  return new Uint8Array(buffer, byteOffsetOf.call(value) as number, lengthOf.call(value) as number);
}

/** A plain, independent copy of what the engine says a genuine Uint8Array holds. */
export function engineCopy(value: Uint8Array): Uint8Array {
  return engineView(value).slice();
}

/* ------------------------------------------------------------------------ */
/* Guarded buffers                                                          */

/** Bytes on each side of a view; every lie about a length stays inside them, so a wrong access lands here. */
export const GUARD = 512;
const GUARD_BYTE = 0x5c;

/** One argument laid out for a call: the value passed, and how to check it afterwards. */
export interface Made {
  /** What the library is handed. */
  readonly value: unknown;
  /** What the library must do with it. */
  readonly expect: "accept" | "type" | "detached";
  /** The bytes C may touch, as a plain view of the same memory (after the call: what it wrote). */
  readonly genuine: () => Uint8Array;
  /** Whether every guard byte around the view still holds its fill. */
  readonly guardsIntact: () => boolean;
  /** Runs the call with a global patch in place (a redefined prototype), undone before returning. */
  readonly around?: <T>(call: () => T) => T;
}

/** A memory region: `bytes` at offset GUARD of `whole`, guard bytes before and after. */
interface Region {
  readonly whole: Uint8Array;
  readonly view: Uint8Array;
}

function fillRegion(whole: Uint8Array, bytes: Uint8Array): Region {
  whole.fill(GUARD_BYTE);
  whole.set(bytes, GUARD);
  return { whole, view: new Uint8Array(whole.buffer, whole.byteOffset + GUARD, bytes.length) };
}

/** `bytes` in a fresh ArrayBuffer between two guard regions. */
export function guardedRegion(bytes: Uint8Array): Region {
  return fillRegion(new Uint8Array(GUARD + bytes.length + GUARD), bytes);
}

/** Whether the guard bytes of `whole` outside [GUARD, GUARD + length) are intact (`after` false: only before). */
function guardsOf(whole: Uint8Array, length: number, after = true): boolean {
  const n = lengthOf.call(whole) as number;
  for (let i = 0; i < Math.min(GUARD, n); i++) if (whole[i] !== GUARD_BYTE) return false;
  if (after) for (let i = GUARD + length; i < n; i++) if (whole[i] !== GUARD_BYTE) return false;
  return true;
}

/** A plain Uint8Array holding `bytes`, guarded: the reference argument. */
export function plainGuarded(bytes: Uint8Array): Made {
  const { whole, view } = guardedRegion(bytes);
  // `genuine` reads its own view of the memory: the value itself may be given another prototype.
  const genuine = new Uint8Array(whole.buffer, GUARD, bytes.length);
  return { value: view, expect: "accept", genuine: () => genuine, guardsIntact: () => guardsOf(whole, bytes.length) };
}

/* ------------------------------------------------------------------------ */
/* Kinds                                                                    */

export interface Kind {
  readonly name: string;
  make(bytes: Uint8Array): Made;
}

/** Which getters a subclass overrides, and the values they report. */
export interface Lies {
  readonly length?: (real: number) => number;
  readonly byteLength?: (real: number) => number;
  readonly byteOffset?: (real: number) => number;
  readonly buffer?: boolean;
}

/** A Uint8Array subclass whose getters report `lies` (relative to the real values). */
function lyingClass(lies: Lies): new (buffer: ArrayBuffer, offset: number, length: number) => Uint8Array {
  const other = new ArrayBuffer(GUARD * 4);
  return class Lying extends Uint8Array {
    override get length(): number {
      const real = lengthOf.call(this) as number;
      return lies.length ? lies.length(real) : real;
    }
    override get byteLength(): number {
      const real = lengthOf.call(this) as number;
      return lies.byteLength ? lies.byteLength(real) : real;
    }
    override get byteOffset(): number {
      const real = byteOffsetOf.call(this) as number;
      return lies.byteOffset ? lies.byteOffset(real) : real;
    }
    // @ts-expect-error: a lying getter is the point
    override get buffer(): ArrayBufferLike {
      return lies.buffer ? other : (bufferOf.call(this) as ArrayBufferLike);
    }
  };
}

/** A subclass instance over guarded memory whose getters lie. */
export function lyingSubclass(name: string, lies: Lies): Kind {
  const Lying = lyingClass(lies);
  return {
    name,
    make(bytes) {
      const { whole, view } = guardedRegion(bytes);
      const value = new Lying(whole.buffer as ArrayBuffer, GUARD, bytes.length);
      return { value, expect: "accept", genuine: () => view, guardsIntact: () => guardsOf(whole, bytes.length) };
    },
  };
}

/** How much a lie adds: enough to leave the view, never past its guards. */
const LIE = 48;

/** Runs `call` with `target`'s `keys` redefined as getters reporting lies, restoring them afterwards. */
function withPatchedGetters<T>(target: object, lies: Record<string, (this: unknown) => unknown>, call: () => T): T {
  const saved = new Map<string, PropertyDescriptor | undefined>();
  for (const key of Object.keys(lies)) {
    saved.set(key, Object.getOwnPropertyDescriptor(target, key));
    Object.defineProperty(target, key, { get: lies[key], configurable: true });
  }
  try {
    return call();
  } finally {
    for (const [key, descriptor] of saved) {
      if (descriptor) Object.defineProperty(target, key, descriptor);
      else delete (target as Record<string, unknown>)[key];
    }
  }
}

function patchedPrototype(name: string, target: object): Kind {
  const lies = {
    length(this: unknown) {
      return (lengthOf.call(this) as number) + LIE;
    },
    byteLength(this: unknown) {
      return (lengthOf.call(this) as number) + LIE;
    },
    byteOffset(this: unknown) {
      return (byteOffsetOf.call(this) as number) + 16;
    },
  };
  return {
    name,
    make(bytes) {
      const made = plainGuarded(bytes);
      return { ...made, around: (call) => withPatchedGetters(target, lies, call) };
    },
  };
}

/** Uint8Array.prototype's @@toStringTag and %TypedArray%.prototype's made to call everything a Uint8Array. */
function patchedTag(): Kind {
  return {
    name: "%TypedArray%.prototype[Symbol.toStringTag] and Object.prototype.toString patched to say Uint8Array",
    make(bytes) {
      const made = plainGuarded(bytes);
      return {
        ...made,
        around: (call) => {
          const tag = Object.getOwnPropertyDescriptor(TypedArrayPrototype, Symbol.toStringTag)!;
          const toString = Object.prototype.toString;
          Object.defineProperty(TypedArrayPrototype, Symbol.toStringTag, { get: () => "Uint8Array", configurable: true });
          Object.prototype.toString = () => "[object Uint8Array]";
          try {
            return call();
          } finally {
            Object.defineProperty(TypedArrayPrototype, Symbol.toStringTag, tag);
            Object.prototype.toString = toString;
          }
        },
      };
    },
  };
}

/** A genuine Uint8Array whose prototype was swapped for `proto`. */
function swappedPrototype(name: string, proto: () => object | null): Kind {
  return {
    name,
    make(bytes) {
      const made = plainGuarded(bytes);
      Object.setPrototypeOf(made.value as object, proto());
      return made;
    },
  };
}

const realm = vm.createContext({});

/** A Uint8Array of another realm (node:vm) over that realm's guarded ArrayBuffer. */
const otherRealm: Kind = {
  name: "a Uint8Array of another realm (node:vm)",
  make(bytes) {
    const whole = vm.runInContext(`new Uint8Array(${GUARD + bytes.length + GUARD})`, realm) as Uint8Array;
    fillRegion(whole, bytes);
    const value = vm.runInContext(`(whole) => new Uint8Array(whole.buffer, ${GUARD}, ${bytes.length})`, realm)(whole);
    const view = new Uint8Array(bufferOf.call(whole) as ArrayBuffer, GUARD, bytes.length);
    return { value, expect: "accept", genuine: () => view, guardsIntact: () => guardsOf(whole, bytes.length) };
  },
};

/** A Buffer over guarded memory (GramJS passes Buffers). */
const nodeBuffer: Kind = {
  name: "a Node.js Buffer",
  make(bytes) {
    const made = plainGuarded(bytes);
    const view = made.value as Uint8Array;
    return { ...made, value: Buffer.from(view.buffer, view.byteOffset, bytes.length) };
  },
};

/** Views of resizable ArrayBuffers, made with `bytes` in place and then shrunk. */
const lengthTrackingShrunk: Kind = {
  name: "a length-tracking view of a resizable ArrayBuffer, shrunk before the call",
  make(bytes) {
    const buffer = new ArrayBuffer(GUARD + bytes.length + 64, { maxByteLength: GUARD + bytes.length + 1024 });
    const whole = new Uint8Array(buffer);
    fillRegion(whole, bytes);
    const value = new Uint8Array(buffer, GUARD);
    buffer.resize(GUARD + bytes.length);
    return { value, expect: "accept", genuine: () => value, guardsIntact: () => guardsOf(whole, bytes.length, false) };
  },
};

const fixedInResizable: Kind = {
  name: "a fixed-length view of a resizable ArrayBuffer, shrunk to its end before the call",
  make(bytes) {
    const buffer = new ArrayBuffer(GUARD + bytes.length + 64, { maxByteLength: GUARD + bytes.length + 1024 });
    const whole = new Uint8Array(buffer);
    fillRegion(whole, bytes);
    const value = new Uint8Array(buffer, GUARD, bytes.length);
    buffer.resize(GUARD + bytes.length);
    return { value, expect: "accept", genuine: () => value, guardsIntact: () => guardsOf(whole, bytes.length, false) };
  },
};

const fixedOutOfBounds: Kind = {
  name: "a fixed-length view of a resizable ArrayBuffer shrunk below it (out of bounds: the engine says 0 bytes)",
  make(bytes) {
    const buffer = new ArrayBuffer(GUARD + bytes.length + GUARD, { maxByteLength: GUARD + bytes.length + 1024 });
    const whole = new Uint8Array(buffer);
    fillRegion(whole, bytes);
    const value = new Uint8Array(buffer, GUARD, bytes.length);
    buffer.resize(GUARD + (bytes.length >> 1));
    return {
      value,
      expect: "accept",
      genuine: () => new Uint8Array(0),
      guardsIntact: () => guardsOf(whole, bytes.length >> 1, false) &&
        whole.subarray(GUARD).every((b, i) => b === bytes[i]),
    };
  },
};

const growableShared: Kind = {
  name: "a length-tracking view of a growable SharedArrayBuffer, grown before the call",
  make(bytes) {
    const buffer = new SharedArrayBuffer(GUARD, { maxByteLength: GUARD + bytes.length + GUARD });
    const value = new Uint8Array(buffer, GUARD);
    buffer.grow(GUARD + bytes.length + GUARD);
    const whole = new Uint8Array(buffer);
    fillRegion(whole, bytes);
    // The view tracks the grown length: its bytes are `bytes` and the guard after them.
    return {
      value,
      expect: "accept",
      genuine: () => value,
      guardsIntact: () => guardsOf(whole, bytes.length + GUARD, false),
    };
  },
};

const fixedShared: Kind = {
  name: "a view of a SharedArrayBuffer",
  make(bytes) {
    const whole = new Uint8Array(new SharedArrayBuffer(GUARD + bytes.length + GUARD));
    const { view } = fillRegion(whole, bytes);
    return { value: view, expect: "accept", genuine: () => view, guardsIntact: () => guardsOf(whole, bytes.length) };
  },
};

const zeroAtEnd: Kind = {
  name: "a zero-length view at the very end of its ArrayBuffer",
  make(bytes) {
    const whole = new Uint8Array(GUARD + bytes.length).fill(GUARD_BYTE);
    const value = new Uint8Array(whole.buffer, GUARD + bytes.length, 0);
    return { value, expect: "accept", genuine: () => value, guardsIntact: () => whole.every((b) => b === GUARD_BYTE) };
  },
};

/* Not genuine Uint8Arrays: TypeError. */

function rejected(name: string, build: (region: Region) => unknown): Kind {
  return {
    name,
    make(bytes) {
      const region = guardedRegion(bytes);
      return {
        value: build(region),
        expect: "type",
        genuine: () => region.view,
        guardsIntact: () => guardsOf(region.whole, bytes.length),
      };
    },
  };
}

function foreignTypedArray(name: string, make: (buffer: ArrayBuffer, offset: number, length: number) => object): Kind {
  return rejected(name, ({ whole, view }) => {
    const other = make(whole.buffer as ArrayBuffer, GUARD, view.length);
    return Object.setPrototypeOf(other, Uint8Array.prototype);
  });
}

/* Detached: TypeError. */

function detached(name: string, detach: (buffer: ArrayBuffer) => void, resizable = false): Kind {
  return {
    name,
    make(bytes) {
      const buffer = resizable
        ? new ArrayBuffer(GUARD + bytes.length + GUARD, { maxByteLength: 4 * GUARD + bytes.length })
        : new ArrayBuffer(GUARD + bytes.length + GUARD);
      fillRegion(new Uint8Array(buffer), bytes);
      const value = new Uint8Array(buffer, GUARD, bytes.length);
      detach(buffer);
      return { value, expect: "detached", genuine: () => new Uint8Array(0), guardsIntact: () => true };
    },
  };
}

/** Every kind, each applied to each byte argument of each call. */
export const KINDS: readonly Kind[] = [
  { name: "a plain Uint8Array (baseline)", make: plainGuarded },
  nodeBuffer,
  lyingSubclass("a subclass whose length and byteLength report more", {
    length: (n) => n + LIE,
    byteLength: (n) => n + LIE,
  }),
  lyingSubclass("a subclass whose length reports more", { length: (n) => n + LIE }),
  lyingSubclass("a subclass whose length and byteLength report less", {
    length: (n) => Math.max(0, n - 1),
    byteLength: (n) => Math.max(0, n - 1),
  }),
  lyingSubclass("a subclass whose length reports an exact-size 32 and byteLength 256", {
    length: () => 32,
    byteLength: () => 256,
  }),
  lyingSubclass("a subclass whose byteOffset reports 16 more", { byteOffset: (n) => n + 16 }),
  lyingSubclass("a subclass whose buffer is another ArrayBuffer", { buffer: true }),
  lyingSubclass("a subclass lying about everything", {
    length: (n) => n + LIE,
    byteLength: (n) => n + LIE,
    byteOffset: (n) => n + 16,
    buffer: true,
  }),
  patchedPrototype("Uint8Array.prototype given lying length/byteLength/byteOffset getters", Uint8Array.prototype),
  patchedPrototype("%TypedArray%.prototype's length/byteLength/byteOffset getters redefined", TypedArrayPrototype),
  patchedTag(),
  swappedPrototype("a Uint8Array whose prototype was swapped for Object.prototype", () => Object.prototype),
  swappedPrototype("a Uint8Array whose prototype was swapped for null", () => null),
  swappedPrototype(
    "a Uint8Array whose prototype was swapped for a lying subclass's",
    () => lyingClass({ length: (n) => n + LIE, byteLength: (n) => n + LIE }).prototype,
  ),
  otherRealm,
  lengthTrackingShrunk,
  fixedInResizable,
  fixedOutOfBounds,
  growableShared,
  fixedShared,
  zeroAtEnd,
  rejected("a Proxy around a Uint8Array", ({ view }) => new Proxy(view, {})),
  rejected("a Proxy around a Uint8Array whose get trap lies about length", ({ view }) =>
    new Proxy(view, {
      get: (target, key) => (key === "length" || key === "byteLength" ? lengthOf.call(target) as number + LIE : Reflect.get(target, key, target)),
    })),
  rejected("an object made from Uint8Array.prototype with own length, buffer and byteOffset", ({ whole, view }) =>
    Object.create(Uint8Array.prototype, {
      length: { value: view.length + LIE },
      byteLength: { value: view.length + LIE },
      byteOffset: { value: GUARD },
      buffer: { value: whole.buffer },
    })),
  rejected("an array of numbers", ({ view }) => Array.from(view)),
  foreignTypedArray("a Uint16Array whose prototype was swapped for Uint8Array.prototype", (b, o, n) =>
    new Uint16Array(b, o, n >> 1)),
  foreignTypedArray("a Float64Array whose prototype was swapped for Uint8Array.prototype", (b, o, n) =>
    new Float64Array(b, o, n >> 3)),
  foreignTypedArray("a Uint8ClampedArray whose prototype was swapped for Uint8Array.prototype", (b, o, n) =>
    new Uint8ClampedArray(b, o, n)),
  foreignTypedArray("a DataView whose prototype was swapped for Uint8Array.prototype", (b, o, n) =>
    new DataView(b, o, n)),
  detached("a view of an ArrayBuffer transferred by structuredClone", (buffer) => {
    structuredClone(buffer, { transfer: [buffer] });
  }),
  detached("a view of an ArrayBuffer detached by ArrayBuffer.prototype.transfer", (buffer) => {
    buffer.transfer();
  }),
  detached("a view of a resizable ArrayBuffer detached by transferToFixedLength", (buffer) => {
    buffer.transferToFixedLength();
  }, true),
];
