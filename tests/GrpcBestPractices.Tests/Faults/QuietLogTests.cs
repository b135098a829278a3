using GrpcBestPractices.ServiceDefaults;
using Microsoft.AspNetCore.Connections;
using Serilog;
using Serilog.Core;
using Serilog.Events;

namespace GrpcBestPractices.Tests.Faults;

/// <summary>The apps' log filter, in a real Serilog pipeline: clients that went away are counted, not logged; repeats are capped and summed up.</summary>
public sealed class QuietLogTests
{
    [Fact]
    public void ThousandsOfIdenticalErrorsWriteAtMostTheCapPerIntervalThenOneSummaryLine()
    {
        var (log, written, quiet) = Pipeline();

        for (var i = 0; i < 12_700; i++)
        {
            log.ForContext(Constants.SourceContextPropertyName, "Grpc.AspNetCore.Server.ServerCallHandler")
                .Error(new InvalidOperationException("broken"), "Error when executing service method '{Method}'.", "Get");
        }

        quiet.Summarise();

        Assert.Equal(QuietErrors.MaxPerInterval, written.Count(e => e.Level == LogEventLevel.Error));
        var summary = Assert.Single(written, e => e.Level == LogEventLevel.Warning);
        Assert.Equal("12695", summary.Properties["Count"].ToString());
        Assert.Contains("Error when executing service method", summary.Properties["Template"].ToString());
    }

    [Fact]
    public void TheCapOpensAgainInTheNextInterval()
    {
        var (log, written, quiet) = Pipeline();

        for (var i = 0; i < 3 * QuietErrors.MaxPerInterval; i++)
        {
            log.Warning("The same warning {Attempt}", i);
        }

        quiet.Summarise();
        log.Warning("The same warning {Attempt}", -1);

        Assert.Equal(QuietErrors.MaxPerInterval + 1, written.Count(e => e.MessageTemplate.Text == "The same warning {Attempt}"));
    }

    public static TheoryData<string, Exception> ClientsThatWentAway => new()
    {
        { "Grpc.AspNetCore.Server.ServerCallHandler", new OperationCanceledException() },
        { "Microsoft.AspNetCore.Server.Kestrel", new ConnectionResetException("Connection reset by peer") },
        { "Grpc.AspNetCore.Server.ServerCallHandler", new InvalidOperationException("Can't read messages after the request is complete.", new IOException("The client reset the request stream.")) },
        { "Microsoft.AspNetCore.Server.Kestrel", new Microsoft.AspNetCore.Http.BadHttpRequestException("Unexpected end of request content.") },
        { "PerformanceService", new Grpc.Core.RpcException(new Grpc.Core.Status(Grpc.Core.StatusCode.Cancelled, "Call canceled by the client.")) },
        { "PerformanceService", new Grpc.Core.RpcException(new Grpc.Core.Status(Grpc.Core.StatusCode.DeadlineExceeded, "Deadline Exceeded")) },
    };

    [Theory]
    [MemberData(nameof(ClientsThatWentAway))]
    public void ACallItsClientCancelledOrResetIsCountedNotLoggedAsAnError(string source, Exception gone)
    {
        var (log, written, quiet) = Pipeline();

        log.ForContext(Constants.SourceContextPropertyName, source).Error(gone, "Error when executing service method '{Method}'.", "Get");
        quiet.Summarise();

        var summary = Assert.Single(written);
        Assert.Equal(LogEventLevel.Information, summary.Level);
        Assert.StartsWith("1 calls ended by their clients", summary.RenderMessage(System.Globalization.CultureInfo.InvariantCulture));
    }

    [Fact]
    public void TheAppsOwnFailuresStillReachTheLog()
    {
        var (log, written, _) = Pipeline();

        log.ForContext(Constants.SourceContextPropertyName, "ApiGateway.History.RunStore").Error(new IOException("disk full"), "The history could not be written");
        log.ForContext(Constants.SourceContextPropertyName, "Grpc.AspNetCore.Server.ServerCallHandler")
            .Error(new Grpc.Core.RpcException(new Grpc.Core.Status(Grpc.Core.StatusCode.Internal, "bug")), "Error when executing service method '{Method}'.", "Get");

        Assert.Equal(2, written.Count(e => e.Level == LogEventLevel.Error));
    }

    private static (ILogger Log, List<LogEvent> Written, QuietErrors Quiet) Pipeline()
    {
        var written = new List<LogEvent>();
        ILogger? log = null;
        var quiet = new QuietErrors(() => log!, TimeSpan.FromHours(1));
        log = new LoggerConfiguration().Filter.With(quiet).WriteTo.Sink(new ListSink(written)).CreateLogger();
        return (log, written, quiet);
    }

    private sealed class ListSink(List<LogEvent> events) : ILogEventSink
    {
        public void Emit(LogEvent logEvent) => events.Add(logEvent);
    }
}
