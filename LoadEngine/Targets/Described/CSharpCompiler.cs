using System.Diagnostics;
using System.Runtime.InteropServices;
using Google.Protobuf;

namespace LoadEngine.Targets.Described;

/// <summary>
/// Roslyn in a process of its own (LoadEngine.Compiler, beside this assembly): the C# protoc wrote goes to it on stdin and
/// the assembly image comes back on stdout. One worker compiles one request at a time, stays for the next while it is
/// wanted, and exits after <see cref="IdleBeforeExit"/> idle or <see cref="CompilesPerWorker"/> compiles. So the compiler's
/// code, heap and the JIT's work on it never stay in a long-lived process (in the gateway they grew it by about 70 MB
/// over 300 describes), a describe's budget ends a compile by ending the worker, and the worker's heap has a hard limit.
/// </summary>
internal static class CSharpCompiler
{
    /// <summary>The worker's managed heap: a set within <see cref="DescribeLimits"/> compiles in well under it.</summary>
    public const long HeapLimitBytes = 2L * 1024 * 1024 * 1024;

    private const int CompilesPerWorker = 200;

    private static readonly TimeSpan IdleBeforeExit = TimeSpan.FromSeconds(20);

    private static readonly SemaphoreSlim OneAtATime = new(1, 1);

    private static readonly Lazy<IReadOnlyList<string>> References = new(() =>
    {
        var paths = ((string?)AppContext.GetData("TRUSTED_PLATFORM_ASSEMBLIES") ?? "").Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries);
        var framework = Path.GetDirectoryName(typeof(object).Assembly.Location)!;
        return [.. paths.Where(path => Path.GetDirectoryName(path) == framework), typeof(IMessage).Assembly.Location];
    });

    private static Worker? _worker;
    private static Timer? _idle;

    /// <summary>The worker's path: LoadEngine.Compiler.dll beside this assembly.</summary>
    public static string WorkerPath { get; } = Path.Combine(AppContext.BaseDirectory, "LoadEngine.Compiler.dll");

    /// <summary>The process id of the worker running now, or null (for the tests: it exits when idle).</summary>
    internal static int? WorkerProcessId => Volatile.Read(ref _worker)?.Id;

    /// <summary>
    /// The image of <paramref name="sources"/> compiled as <paramref name="name"/> against the framework and Google.Protobuf, or
    /// <paramref name="references"/> when given (the checkup's snippets are compiled against Grpc.Net.Client so); a compile error is a sentence.
    /// </summary>
    public static async Task<byte[]> EmitAsync(IReadOnlyList<(string Path, string Text)> sources, string name, CancellationToken cancellation, IReadOnlyList<string>? references = null)
    {
        await OneAtATime.WaitAsync(cancellation);
        try
        {
            _idle?.Change(Timeout.Infinite, Timeout.Infinite);
            if (_worker is { HasExited: true } ended)
            {
                ended.Stop();
                _worker = null;
            }

            var worker = _worker ??= Worker.Start();
            try
            {
                var (image, error) = await worker.CompileAsync(Request(sources, name, references ?? References.Value), cancellation);
                return image ?? throw new TargetDescriptionException($"The C# protoc wrote for the target's descriptors does not compile ({error}).");
            }
            catch (Exception stopped) when (stopped is not TargetDescriptionException)
            {
                // Cancelled (the describe's budget), or the worker ended (its heap limit): this worker is done; the next compile starts another.
                _worker = null;
                worker.Stop();
                cancellation.ThrowIfCancellationRequested();
                throw new TargetDescriptionException(
                    $"The compiler stopped before it finished the target's descriptors ({worker.Said()}); it may use at most {HeapLimitBytes / (1024 * 1024 * 1024)} GiB.", stopped);
            }
            finally
            {
                if (_worker is { Compiles: >= CompilesPerWorker } spent)
                {
                    _worker = null;
                    spent.Stop();
                }
            }
        }
        finally
        {
            _idle ??= new Timer(_ => ExitIdle(), null, Timeout.Infinite, Timeout.Infinite);
            _idle.Change(IdleBeforeExit, Timeout.InfiniteTimeSpan);
            OneAtATime.Release();
        }
    }

    private static void ExitIdle()
    {
        if (!OneAtATime.Wait(0))
        {
            // A compile is under way; its end arms the timer again.
            return;
        }

        try
        {
            _worker?.Stop();
            _worker = null;
        }
        finally
        {
            OneAtATime.Release();
        }
    }

    private static byte[] Request(IReadOnlyList<(string Path, string Text)> sources, string name, IReadOnlyList<string> references)
    {
        using var request = new MemoryStream();
        using (var writer = new BinaryWriter(request, System.Text.Encoding.UTF8, leaveOpen: true))
        {
            writer.Write(name);
            writer.Write(references.Count);
            foreach (var reference in references)
            {
                writer.Write(reference);
            }

            writer.Write(sources.Count);
            foreach (var (path, text) in sources)
            {
                writer.Write(path);
                writer.Write(text);
            }
        }

        return request.ToArray();
    }

    /// <summary>One worker process: a frame is its length (4 bytes, little-endian) and then its bytes, each way.</summary>
    private sealed class Worker
    {
        private readonly Process _process;
        private readonly System.Collections.Concurrent.ConcurrentQueue<string> _errors = new();

        private Worker(Process process) => _process = process;

        public int Id => _process.Id;

        public int Compiles { get; private set; }

        public bool HasExited => _process.HasExited;

        public static Worker Start()
        {
            if (!File.Exists(WorkerPath))
            {
                throw new TargetDescriptionException($"The compiler that describing a target needs is missing: {WorkerPath} was not built with this app.");
            }

            var start = new ProcessStartInfo(DotnetHost())
            {
                RedirectStandardInput = true,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
            };
            start.ArgumentList.Add(WorkerPath);
            start.Environment["DOTNET_GCHeapHardLimit"] = $"0x{HeapLimitBytes:X}";
            start.Environment["DOTNET_gcServer"] = "0";
            var worker = new Worker(new Process { StartInfo = start });
            worker._process.ErrorDataReceived += (_, line) =>
            {
                if (!string.IsNullOrWhiteSpace(line.Data) && worker._errors.Count < 20)
                {
                    worker._errors.Enqueue(line.Data.Trim());
                }
            };
            worker._process.Start();
            worker._process.BeginErrorReadLine();
            return worker;
        }

        public async Task<(byte[]? Image, string? Error)> CompileAsync(byte[] request, CancellationToken cancellation)
        {
            Compiles++;
            // A pipe's read may not notice a cancelled token: ending the worker ends the read too.
            await using var stop = cancellation.Register(() =>
            {
                try
                {
                    _process.Kill(entireProcessTree: true);
                }
                catch (InvalidOperationException)
                {
                }
            });
            var input = _process.StandardInput.BaseStream;
            await input.WriteAsync(BitConverter.GetBytes(request.Length), cancellation);
            await input.WriteAsync(request, cancellation);
            await input.FlushAsync(cancellation);

            var output = _process.StandardOutput.BaseStream;
            var length = new byte[4];
            await output.ReadExactlyAsync(length, cancellation);
            var answer = new byte[BitConverter.ToInt32(length)];
            await output.ReadExactlyAsync(answer, cancellation);
            using var reader = new BinaryReader(new MemoryStream(answer));
            return reader.ReadBoolean() ? (reader.ReadBytes(answer.Length - 1), null) : (null, reader.ReadString());
        }

        /// <summary>What the worker said on stderr, in a few words (an out-of-memory, a crash); "it ended" when nothing.</summary>
        public string Said() => _errors.IsEmpty ? "it ended" : TargetText.Escape(string.Join(" ", _errors.Take(2)), 300);

        /// <summary>Ends it: its stdin closed (it exits when it reads the end), and killed if it does not within a moment.</summary>
        public void Stop()
        {
            try
            {
                _process.StandardInput.Close();
                if (!_process.WaitForExit(TimeSpan.FromSeconds(2)))
                {
                    _process.Kill(entireProcessTree: true);
                }
            }
            catch (Exception gone) when (gone is InvalidOperationException or IOException or System.ComponentModel.Win32Exception)
            {
                // Already ended.
            }
            finally
            {
                _process.Dispose();
            }
        }

        /// <summary>The dotnet host this process runs on, which runs the worker's framework-dependent dll.</summary>
        private static string DotnetHost()
        {
            var executable = OperatingSystem.IsWindows() ? "dotnet.exe" : "dotnet";
            if (Environment.ProcessPath is { } current && Path.GetFileName(current) == executable)
            {
                return current;
            }

            if (Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } host && File.Exists(host))
            {
                return host;
            }

            // The shared framework is <root>/shared/Microsoft.NETCore.App/<version>/; the host is <root>/dotnet.
            var root = Path.GetFullPath(Path.Combine(RuntimeEnvironment.GetRuntimeDirectory(), "..", "..", ".."));
            return File.Exists(Path.Combine(root, executable)) ? Path.Combine(root, executable) : executable;
        }
    }
}
