//! sha256sums OUT (NAME FILE)...: writes OUT in the format of `sha256sum`
//! ("<hex>  NAME" per line, in argument order), so `sha256sum -c` and
//! `shasum -a 256 -c` verify it. Built and run by `zig build dist` on the
//! host, so no system tool is needed on any OS.
const std = @import("std");

pub fn main(init: std.process.Init) !void {
    const arena = init.arena.allocator();
    const io = init.io;
    const args = try init.minimal.args.toSlice(arena);
    if (args.len < 2 or args.len % 2 != 0) {
        std.debug.print("usage: sha256sums OUT (NAME FILE)...\n", .{});
        std.process.exit(2);
    }
    const cwd = std.Io.Dir.cwd();
    var out: std.ArrayList(u8) = .empty;
    var i: usize = 2;
    while (i < args.len) : (i += 2) {
        const data = try cwd.readFileAlloc(io, args[i + 1], arena, .unlimited);
        var digest: [std.crypto.hash.sha2.Sha256.digest_length]u8 = undefined;
        std.crypto.hash.sha2.Sha256.hash(data, &digest, .{});
        try out.print(arena, "{s}  {s}\n", .{ &std.fmt.bytesToHex(digest, .lower), args[i] });
    }
    try cwd.writeFile(io, .{ .sub_path = args[1], .data = out.items });
}
