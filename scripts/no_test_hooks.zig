//! no-test-hooks FILE...: fails if a shipped library contains the C test
//! hooks (csrc/backend.h, -DTG_TEST_HOOKS): an object built with them names
//! the hook functions (`tg_test_secret`, `tg_test_clean`, imported or
//! defined) and carries "TG_TEST_HOOK" location strings, stripped or not.
//! Run by `zig build test` on the library it installs.
const std = @import("std");

pub fn main(init: std.process.Init) !void {
    const arena = init.arena.allocator();
    const io = init.io;
    const args = try init.minimal.args.toSlice(arena);
    if (args.len < 2) {
        std.debug.print("usage: no-test-hooks FILE...\n", .{});
        std.process.exit(2);
    }
    const cwd = std.Io.Dir.cwd();
    var found = false;
    for (args[1..]) |path| {
        const data = try cwd.readFileAlloc(io, path, arena, .unlimited);
        for ([_][]const u8{ "tg_test_", "TG_TEST_HOOK" }) |needle| {
            if (std.mem.indexOf(u8, data, needle) != null) {
                std.debug.print("{s}: contains \"{s}\": the shipped library was built with the C test hooks\n", .{ path, needle });
                found = true;
            }
        }
    }
    if (found) std.process.exit(1);
}
