using System.Collections.Concurrent;
using Serilog;
using Serilog.Core;
using Serilog.Events;

namespace GrpcBestPractices.ServiceDefaults;

/// <summary>
/// Keeps the log readable under abuse: a call its client cancelled, reset or let time out is not an error of this app,
/// so it is counted, not logged; and the same warning or error (by message template) is written at most
/// <see cref="MaxPerInterval"/> times per <see cref="Interval"/>. Both are summed up in one line per interval.
/// </summary>
public sealed class QuietErrors : ILogEventFilter, IDisposable
{
    public const int MaxPerInterval = 5;

    private const string SuppressedTemplate = "Left out {Count} more entries like \"{Template}\" in the last {Seconds} s";
    private const string ClientsGoneTemplate = "{Count} calls ended by their clients (cancelled, reset or past their deadline) in the last {Seconds} s; not logged one by one";

    private readonly ConcurrentDictionary<string, Window> _windows = new();
    private readonly Func<ILogger> _summaries;
    private readonly Timer _timer;
    private long _clientsGone;

    /// <param name="summaries">Where the interval's summary lines go (the app's logger; they pass this filter).</param>
    public QuietErrors(Func<ILogger> summaries, TimeSpan? interval = null)
    {
        _summaries = summaries;
        Interval = interval ?? TimeSpan.FromSeconds(10);
        _timer = new Timer(_ => Summarise(), null, Interval, Interval);
    }

    public TimeSpan Interval { get; }

    public bool IsEnabled(LogEvent logEvent)
    {
        if (logEvent.Level < LogEventLevel.Warning || logEvent.MessageTemplate.Text is SuppressedTemplate or ClientsGoneTemplate)
        {
            return true;
        }

        if (IsClientGone(logEvent))
        {
            Interlocked.Increment(ref _clientsGone);
            return false;
        }

        var window = _windows.GetOrAdd(logEvent.MessageTemplate.Text, _ => new Window());
        if (Interlocked.Increment(ref window.Written) <= MaxPerInterval)
        {
            return true;
        }

        Interlocked.Increment(ref window.Suppressed);
        return false;
    }

    /// <summary>Writes the interval's summary lines and opens the next interval.</summary>
    public void Summarise()
    {
        var seconds = (int)Interval.TotalSeconds;
        if (Interlocked.Exchange(ref _clientsGone, 0) is var gone and > 0)
        {
            _summaries().Information(ClientsGoneTemplate, gone, seconds);
        }

        foreach (var (template, window) in _windows)
        {
            Interlocked.Exchange(ref window.Written, 0);
            if (Interlocked.Exchange(ref window.Suppressed, 0) is var suppressed and > 0)
            {
                _summaries().Warning(SuppressedTemplate, suppressed, template, seconds);
            }
        }
    }

    public void Dispose() => _timer.Dispose();

    /// <summary>
    /// A cancellation, or the network I/O of a request the framework (gRPC, Kestrel) was serving failing because the
    /// client went away; an app's own I/O failing (a file, a database) is still an error.
    /// </summary>
    public static bool IsClientGone(LogEvent logEvent)
    {
        var source = logEvent.Properties.TryGetValue(Constants.SourceContextPropertyName, out var value) && value is ScalarValue { Value: string name } ? name : "";
        var framework = source.StartsWith("Grpc.", StringComparison.Ordinal) || source.StartsWith("Microsoft.AspNetCore.", StringComparison.Ordinal);
        for (var exception = logEvent.Exception; exception is not null; exception = exception.InnerException)
        {
            if (exception is OperationCanceledException
                || (framework && exception is IOException)
                // Grpc.Core's RpcException, by its message, so this project need not reference gRPC.
                || (exception.GetType().FullName == "Grpc.Core.RpcException"
                    && (exception.Message.Contains("StatusCode=\"Cancelled\"", StringComparison.Ordinal)
                        || exception.Message.Contains("StatusCode=\"DeadlineExceeded\"", StringComparison.Ordinal))))
            {
                return true;
            }
        }

        return false;
    }

    private sealed class Window
    {
        public long Written;
        public long Suppressed;
    }
}
