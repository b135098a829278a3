using System.Diagnostics;
using System.Globalization;
using System.Runtime.Versioning;
using System.Text.RegularExpressions;
using Npgsql;

namespace GrpcBestPractices.Tests.Infrastructure;

/// <summary>
/// A real PostgreSQL server of the tests' own: initdb into a fresh temp folder, with a password (so tests can prove it is
/// never shown), listening on a free loopback port only; stopped and deleted at the end. PostgreSQL refuses to run as
/// root, so when the tests run as root (CI does) the server's programs run as the postgres user, in a folder it owns.
/// Without PostgreSQL installed the tests that use it fail, saying what to install.
/// </summary>
public sealed partial class PostgresServer : IAsyncLifetime
{
    private const string Superuser = "postgres";
    private const string PostgresAccount = "postgres";
    private static readonly TimeSpan StartPatience = TimeSpan.FromSeconds(60);

    private string _folder = string.Empty;
    private string _bin = string.Empty;
    private bool _running;

    /// <summary>The superuser's password, in <see cref="ConnectionString"/>: what a test checks never appears in output.</summary>
    public string Password { get; } = "pg-" + Guid.NewGuid().ToString("N");

    public int Port { get; private set; }

    /// <summary>The superuser on the server's own "postgres" database.</summary>
    public string ConnectionString { get; private set; } = string.Empty;

    private static bool RunningAsRoot => Environment.UserName == "root";

    private string DataFolder => Path.Combine(_folder, "data");

    public static async Task<PostgresServer> StartAsync()
    {
        var server = new PostgresServer();
        await server.InitializeAsync();
        return server;
    }

    public async Task InitializeAsync()
    {
        _bin = FindBinaries();
        _folder = Directory.CreateTempSubdirectory("grpcbp-postgres-").FullName;
        var passwordFile = Path.Combine(_folder, "password");
        await File.WriteAllTextAsync(passwordFile, Password);
        if (RunningAsRoot && !OperatingSystem.IsWindows())
        {
            await HandToPostgresAccountAsync(_folder);
        }

        await RunAsync("initdb", "-D", DataFolder, "-U", Superuser, "-A", "scram-sha-256", "--pwfile", passwordFile, "-E", "UTF8", "--locale", "C", "--no-sync");
        File.Delete(passwordFile);
        // Another test may take the free port between our choice and the server's bind: then try another.
        for (var attempt = 1; !_running; attempt++)
        {
            Port = Ports.Unused();
            ConnectionString = new NpgsqlConnectionStringBuilder
            {
                Host = "127.0.0.1",
                Port = Port,
                Username = Superuser,
                Password = Password,
                Database = "postgres",
            }.ToString();
            await StartServerAsync(attempt, lastAttempt: attempt == 3);
        }
    }

    /// <summary>A fresh, empty database on this server; returns a connection string to it.</summary>
    public async Task<string> CreateDatabaseAsync(string name)
    {
        if (!DatabaseName().IsMatch(name))
        {
            throw new ArgumentException($"'{name}' is not a plain database name (lower-case letters, digits, underscores).", nameof(name));
        }

        await using (var connection = new NpgsqlConnection(ConnectionString + ";Pooling=false"))
        {
            await connection.OpenAsync();
            await using var create = new NpgsqlCommand($"CREATE DATABASE \"{name}\";", connection);
            await create.ExecuteNonQueryAsync();
        }

        return new NpgsqlConnectionStringBuilder(ConnectionString) { Database = name }.ToString();
    }

    /// <summary>Stops the server at once, as a crash or a pulled cable would; it does not come back.</summary>
    public async Task StopAsync()
    {
        if (_running)
        {
            _running = false;
            await RunAsync("pg_ctl", "-D", DataFolder, "stop", "-m", "immediate");
        }
    }

    public async Task DisposeAsync()
    {
        try
        {
            await StopAsync();
        }
        finally
        {
            if (Directory.Exists(_folder))
            {
                Directory.Delete(_folder, recursive: true);
            }
        }
    }

    private async Task StartServerAsync(int attempt, bool lastAttempt)
    {
        var log = Path.Combine(_folder, $"server-{attempt}.log");
        // Tests need no durability; max_connections above the 100 a pool may open, with room for a second pool.
        await RunAsync(
            "pg_ctl", "-D", DataFolder, "-l", log, "-W", "start", "-o",
            $"-p {Port} -k {_folder} -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off");
        var started = Stopwatch.GetTimestamp();
        while (true)
        {
            try
            {
                await using var connection = new NpgsqlConnection(ConnectionString + ";Pooling=false;Timeout=5");
                await connection.OpenAsync();
                _running = true;
                // pg_ctl starts the postmaster in a session of its own and leaves it: it goes with the test host all the same.
                await TestHostBond.AdoptAsync(await PostmasterIdAsync());
                return;
            }
            catch (NpgsqlException notYet)
            {
                var output = File.Exists(log) ? await File.ReadAllTextAsync(log) : string.Empty;
                if (output.Contains("could not bind", StringComparison.Ordinal) && !lastAttempt)
                {
                    return;
                }

                if (Stopwatch.GetElapsedTime(started) > StartPatience)
                {
                    throw new InvalidOperationException($"PostgreSQL did not accept connections on port {Port} within {StartPatience}: {notYet.Message}. Its log:{Environment.NewLine}{output}");
                }

                await Task.Delay(50);
            }
        }
    }

    /// <summary>The postmaster's PID, the first line of its postmaster.pid (written before it accepts connections).</summary>
    private async Task<int> PostmasterIdAsync() =>
        int.Parse((await File.ReadAllLinesAsync(Path.Combine(DataFolder, "postmaster.pid")))[0], CultureInfo.InvariantCulture);

    /// <summary>The newest Debian-installed PostgreSQL's programs, else pg_config's; a clear failure when there is none.</summary>
    private static string FindBinaries()
    {
        var installed = Directory.Exists("/usr/lib/postgresql")
            ? Directory.GetDirectories("/usr/lib/postgresql")
                .Where(version => File.Exists(Path.Combine(version, "bin", "initdb")))
                .OrderByDescending(version => int.TryParse(Path.GetFileName(version), CultureInfo.InvariantCulture, out var major) ? major : 0)
                .Select(version => Path.Combine(version, "bin"))
                .FirstOrDefault()
            : null;
        return installed ?? PgConfigBinaries() ?? throw new InvalidOperationException(
            "PostgreSQL is not installed: the PostgreSQL history tests start a server of their own with initdb and pg_ctl, and found " +
            "neither /usr/lib/postgresql/<version>/bin/initdb nor pg_config on PATH. Install Debian's postgresql package (apt-get install postgresql); .ci/run does.");
    }

    private static string? PgConfigBinaries()
    {
        // Without pg_config the bond's shell cannot run it: it exits 127 and prints no folder.
        using var pgConfig = TestHostBond.Start(new ProcessStartInfo("pg_config", ["--bindir"]) { RedirectStandardOutput = true, RedirectStandardError = true });
        _ = pgConfig.StandardError.ReadToEndAsync();
        var folder = pgConfig.StandardOutput.ReadToEnd().Trim();
        pgConfig.WaitForExit();
        return pgConfig.ExitCode == 0 && folder.Length > 0 && File.Exists(Path.Combine(folder, "initdb")) ? folder : null;
    }

    // The postgres account must own the folder and be able to walk to it; a temp folder under a private parent would hide it.
    [UnsupportedOSPlatform("windows")]
    private static async Task HandToPostgresAccountAsync(string folder)
    {
        for (var parent = Directory.GetParent(folder); parent is not null; parent = parent.Parent)
        {
            if (!File.GetUnixFileMode(parent.FullName).HasFlag(UnixFileMode.OtherExecute))
            {
                throw new InvalidOperationException(
                    $"The tests run as root, so PostgreSQL runs as the {PostgresAccount} user, which cannot enter {parent.FullName} (no o+x): point TMPDIR at a folder every user may enter, such as /tmp.");
            }
        }

        await RunProcessAsync("chown", [$"{PostgresAccount}:", folder]);
    }

    private Task RunAsync(string program, params string[] arguments)
    {
        var path = Path.Combine(_bin, program);
        return RunningAsRoot ? RunProcessAsync("runuser", ["-u", PostgresAccount, "--", path, .. arguments]) : RunProcessAsync(path, arguments);
    }

    private static async Task RunProcessAsync(string program, string[] arguments)
    {
        var start = new ProcessStartInfo(program) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        using var process = TestHostBond.Start(start);
        var output = process.StandardOutput.ReadToEndAsync();
        var error = process.StandardError.ReadToEndAsync();
        using var bound = new CancellationTokenSource(StartPatience);
        await process.WaitForExitAsync(bound.Token);
        if (process.ExitCode != 0)
        {
            throw new InvalidOperationException($"{program} {string.Join(' ', arguments)} failed with exit code {process.ExitCode}:{Environment.NewLine}{await output}{await error}");
        }
    }

    [GeneratedRegex("^[a-z_][a-z0-9_]*$")]
    private static partial Regex DatabaseName();
}
