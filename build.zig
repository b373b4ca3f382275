//! Builds libtgcrypto (shared), its header, and the C test and bench programs.
//!
//!   zig build                      shared library + header into zig-out/
//!   zig build test                 known answers + differential tests, every backend
//!   zig build bench                C-level throughput of every backend, then openssl speed
//!   zig build -Dportable=true      no hardware backends (soft only)
//!   zig build -Dnode-addon=false   skip the Node-API addon (zig-out/lib/tgcrypto.node)
//!
//! Without -Dtarget the host OS/arch is used but with a *baseline* CPU: the
//! hardware paths are picked at run time by CPUID/HWCAP, never at build time.
const std = @import("std");

// The core's sources and flags: csrc/core_build.txt, which the Python build
// (bindings/python/_build/tgffi_build.py) reads too.
const core_build = @embedFile("csrc/core_build.txt");
const c_sources = coreBuildEntries("source");
const c_flags = coreBuildEntries("flag");

fn coreBuildCount(comptime kind: []const u8) usize {
    @setEvalBranchQuota(200_000);
    var n: usize = 0;
    var lines = std.mem.tokenizeScalar(u8, core_build, '\n');
    while (lines.next()) |line| {
        if (std.mem.startsWith(u8, line, kind ++ " ")) n += 1;
    }
    return n;
}

/// The values of the "<kind> VALUE" lines of csrc/core_build.txt, in order.
fn coreBuildEntries(comptime kind: []const u8) [coreBuildCount(kind)][]const u8 {
    @setEvalBranchQuota(200_000);
    var out: [coreBuildCount(kind)][]const u8 = undefined;
    var i: usize = 0;
    var lines = std.mem.tokenizeScalar(u8, core_build, '\n');
    while (lines.next()) |line| {
        if (std.mem.startsWith(u8, line, kind ++ " ")) {
            out[i] = std.mem.trim(u8, line[kind.len + 1 ..], " \r\t");
            i += 1;
        }
    }
    const result = out;
    return result;
}

pub fn build(b: *std.Build) void {
    const target = b.standardTargetOptions(.{ .default_target = .{ .cpu_model = .baseline } });
    const optimize = b.option(std.builtin.OptimizeMode, "optimize", "Optimization mode (default: fast)") orelse .fast;
    const portable = b.option(bool, "portable", "Compile out the hardware AES backends (soft only)") orelse false;

    const lib = b.addLibrary(.{
        .name = "tgcrypto",
        .linkage = .dynamic,
        .root_module = coreModule(b, target, optimize, portable, false),
    });
    lib.installHeader(b.path("csrc/tgcrypto.h"), "tgcrypto.h");
    b.installArtifact(lib);
    installPkgConfig(b);

    // The Node-API addon (bindings/node/): the same core linked in, for Node.js.
    const node_headers = nodeApiHeaders(b);
    if (node_headers) |headers| {
        const addon = nodeAddon(b, target, optimize, portable, headers);
        b.getInstallStep().dependOn(&b.addInstallFileWithDir(addon.getEmittedBin(), .lib, "tgcrypto.node").step);
    }

    // The C example, linked against the shared library like a user's program.
    const example = b.addExecutable(.{
        .name = "tgcrypto-example",
        .root_module = b.createModule(.{ .target = target, .optimize = optimize, .link_libc = true }),
    });
    example.root_module.addCSourceFiles(.{ .files = &.{"examples/example.c"}, .flags = &c_flags });
    example.root_module.addIncludePath(b.path("csrc"));
    example.root_module.linkLibrary(lib);
    const run_example = b.addRunArtifact(example);
    run_example.has_side_effects = true;
    b.step("examples", "Build and run the C example against the shared library").dependOn(&run_example.step);

    // C tests: linked statically against the same sources, run on the host.
    // Only this program is built with the test hooks (TG_TEST_HOOKS, see
    // csrc/backend.h); the test step first checks that the shipped library
    // has none.
    const tests = b.addExecutable(.{
        .name = "tgcrypto-test",
        .root_module = coreModule(b, target, optimize, portable, true),
    });
    tests.root_module.addCSourceFiles(.{ .files = &.{ "test/c/test_main.c", "test/c/test_sha.c", "test/c/test_mtproto.c", "test/c/test_factorize.c", "test/c/test_args.c", "test/c/test_wipes.c", "test/c/test_dispatch.c" }, .flags = &c_flags });
    const run_tests = b.addRunArtifact(tests);
    run_tests.addDirectoryArg(b.path("test/vectors"));
    run_tests.has_side_effects = true;
    const no_hooks_tool = b.addExecutable(.{
        .name = "no-test-hooks",
        .root_module = b.createModule(.{ .root_source_file = b.path("scripts/no_test_hooks.zig"), .target = b.graph.host, .optimize = .safe }),
    });
    const no_hooks = b.addRunArtifact(no_hooks_tool);
    no_hooks.addFileArg(lib.getEmittedBin());
    run_tests.step.dependOn(&no_hooks.step);
    b.step("test", "Run the C known-answer and differential tests on every backend").dependOn(&run_tests.step);

    const bench = b.addExecutable(.{
        .name = "tgcrypto-bench",
        .root_module = coreModule(b, target, .fast, portable, false),
    });
    bench.root_module.addCSourceFiles(.{ .files = &.{"bench/c/bench_main.c"}, .flags = &c_flags });
    const run_bench = b.addRunArtifact(bench);
    run_bench.addPassthruArgs();
    run_bench.has_side_effects = true;
    // OpenSSL's speed on the same machine, printed right after (skipped without openssl).
    const run_openssl = b.addSystemCommand(&.{ "bash", "bench/openssl.sh" });
    run_openssl.has_side_effects = true;
    run_openssl.step.dependOn(&run_bench.step);
    b.step("bench", "C-level throughput of every backend, next to openssl speed").dependOn(&run_openssl.step);

    addDist(b, portable, node_headers);

    // Python: cp311-abi3 wheels for the eight dist targets (plus cp39/cp310
    // for Linux) and the sdist, into zig-out/python/ (bindings/python/build_wheels.py).
    const py_wheels = b.addSystemCommand(&.{"python3"});
    py_wheels.addFileArg(b.path("bindings/python/build_wheels.py"));
    py_wheels.addArg("--zig");
    py_wheels.addFileArg(.zig_exe);
    py_wheels.has_side_effects = true;
    b.step("python-wheels", "Build the Python wheels (8 platforms) and sdist into zig-out/python/").dependOn(&py_wheels.step);
}

/// Prebuilt libraries, named as Node names platforms (process.platform-arch[-libc]).
const dist_targets = [_]struct { dir: []const u8, triple: []const u8 }{
    .{ .dir = "linux-x64-gnu", .triple = "x86_64-linux-gnu.2.17" },
    .{ .dir = "linux-arm64-gnu", .triple = "aarch64-linux-gnu.2.17" },
    .{ .dir = "linux-x64-musl", .triple = "x86_64-linux-musl" },
    .{ .dir = "linux-arm64-musl", .triple = "aarch64-linux-musl" },
    .{ .dir = "darwin-x64", .triple = "x86_64-macos" },
    .{ .dir = "darwin-arm64", .triple = "aarch64-macos" },
    .{ .dir = "win32-x64", .triple = "x86_64-windows-gnu" },
    .{ .dir = "win32-arm64", .triple = "aarch64-windows-gnu" },
};

fn addDist(b: *std.Build, portable: bool, node_headers: ?std.Build.LazyPath) void {
    const dist = b.step("dist", "Cross-build the shared library and the Node-API addon for every supported platform into zig-out/dist/");
    // The platform packages ship both: no addon, no dist.
    if (node_headers == null) dist.dependOn(&b.addFail("zig build dist needs the Node-API headers: run `npm install` " ++
        "(node-api-headers) or pass -Dnode-api-headers=DIR").step);
    // zig-out/dist/SHA256SUMS, written by a host tool so every OS gets it.
    const sums_tool = b.addExecutable(.{
        .name = "sha256sums",
        .root_module = b.createModule(.{ .root_source_file = b.path("scripts/sha256sums.zig"), .target = b.graph.host, .optimize = .safe }),
    });
    const sums = b.addRunArtifact(sums_tool);
    const sums_file = sums.addOutputFileArg("SHA256SUMS");
    for (dist_targets) |t| {
        const query = std.Target.Query.parse(.{ .arch_os_abi = t.triple }) catch @panic("bad triple");
        const lib = b.addLibrary(.{
            .name = "tgcrypto",
            .linkage = .dynamic,
            .root_module = coreModule(b, b.resolveTargetQuery(query), .fast, portable, false),
        });
        const install = b.addInstallArtifact(lib, .{
            .dest_dir = .{ .override = .{ .custom = b.fmt("dist/{s}", .{t.dir}) } },
            .implib_dir = .disabled,
            .pdb_dir = .disabled,
            .h_dir = .disabled,
        });
        dist.dependOn(&install.step);
        sums.addArg(b.fmt("{s}/{s}", .{ t.dir, lib.out_filename }));
        sums.addFileArg(lib.getEmittedBin());
        if (node_headers) |headers| {
            const addon = nodeAddon(b, b.resolveTargetQuery(query), .fast, portable, headers);
            dist.dependOn(&b.addInstallFile(addon.getEmittedBin(), b.fmt("dist/{s}/tgcrypto.node", .{t.dir})).step);
            sums.addArg(b.fmt("{s}/tgcrypto.node", .{t.dir}));
            sums.addFileArg(addon.getEmittedBin());
        }
    }
    dist.dependOn(&b.addInstallFile(sums_file, "dist/SHA256SUMS").step);
}

/// The directory holding node_api.h: -Dnode-api-headers=DIR, else the
/// node-api-headers devDependency in node_modules/ (MIT, installed by npm).
/// Null when the addon is off (-Dnode-addon=false) or, by default, when the
/// headers are not installed (a C-only build from source needs no npm).
fn nodeApiHeaders(b: *std.Build) ?std.Build.LazyPath {
    const enabled = b.option(bool, "node-addon", "Build the Node-API addon tgcrypto.node (default: when the headers are installed)");
    if (enabled == false) return null;
    if (b.option([]const u8, "node-api-headers", "Directory with node_api.h (default: node_modules/node-api-headers/include)")) |dir| {
        return .{ .cwd_relative = dir };
    }
    const default_dir = "node_modules/node-api-headers/include";
    b.dependOnFileMetadata(b.path(default_dir ++ "/node_api.h"));
    b.root.access(b.graph.io, default_dir ++ "/node_api.h", .{}) catch {
        if (enabled == true) return b.path(default_dir); // asked for: let the compiler say what is missing
        return null;
    };
    return b.path(default_dir);
}

/// tgcrypto.node: the Node-API glue (bindings/node/) with the core compiled
/// in, its tg_* symbols hidden (TG_API empty, -fvisibility=hidden) so only
/// the module registration is exported. N-API itself comes from the host
/// process: left undefined on ELF and Mach-O (resolved when Node loads the
/// addon), looked up at run time on Windows (bindings/node/napi_windows.c).
fn nodeAddon(
    b: *std.Build,
    target: std.Build.ResolvedTarget,
    optimize: std.builtin.OptimizeMode,
    portable: bool,
    headers: std.Build.LazyPath,
) *std.Build.Step.Compile {
    const m = coreModule(b, target, optimize, portable, false);
    m.addCMacro("TG_API", "");
    m.addSystemIncludePath(headers);
    m.addCSourceFiles(.{ .files = &.{"bindings/node/addon.c"}, .flags = &c_flags });
    if (target.result.os.tag == .windows) {
        m.addCMacro("NAPI_EXTERN", ""); // the forwarders are ours, not exports
        m.addCSourceFiles(.{ .files = &.{"bindings/node/napi_windows.c"}, .flags = &c_flags });
    }
    const addon = b.addLibrary(.{ .name = "tgcrypto-node", .linkage = .dynamic, .root_module = m });
    addon.linker_allow_shlib_undefined = target.result.os.tag != .windows;
    return addon;
}

/// lib/pkgconfig/tgcrypto.pc for C users of an installed build.
fn installPkgConfig(b: *std.Build) void {
    // ${pcfiledir} keeps the file valid wherever the tree is installed or copied.
    const pc =
        \\prefix=${pcfiledir}/../..
        \\libdir=${prefix}/lib
        \\includedir=${prefix}/include
        \\
        \\Name: tgcrypto
        \\Description: AES-256 IGE/CTR/CBC for Telegram, with run-time CPU dispatch
        \\Version: 0.1.0
        \\Libs: -L${libdir} -ltgcrypto
        \\Cflags: -I${includedir}
        \\
    ;
    const files = b.addWriteFiles();
    b.getInstallStep().dependOn(&b.addInstallFile(files.add("tgcrypto.pc", pc), "lib/pkgconfig/tgcrypto.pc").step);
}

fn coreModule(
    b: *std.Build,
    target: std.Build.ResolvedTarget,
    optimize: std.builtin.OptimizeMode,
    portable: bool,
    test_hooks: bool,
) *std.Build.Module {
    const m = b.createModule(.{
        .target = target,
        .optimize = optimize,
        .link_libc = true,
        .strip = optimize == .fast or optimize == .small,
    });
    m.addIncludePath(b.path("csrc"));
    if (portable) m.addCMacro("TG_PORTABLE", "1");
    if (test_hooks) m.addCMacro("TG_TEST_HOOKS", "1");
    m.addCSourceFiles(.{ .files = &c_sources, .flags = &c_flags });
    return m;
}
