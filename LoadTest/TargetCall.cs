using System.CommandLine;
using Grpc.Core;
using LoadEngine;
using LoadEngine.Calls;
using LoadEngine.Clients;
using LoadEngine.Targets;
using LoadEngine.Targets.Described;

namespace LoadTest;

/// <summary>
/// A method of the user's own service, as ghz names it: --call, described by --proto files (with import paths), a
/// --protoset or the target's server reflection; --list prints what the target has instead of running.
/// </summary>
public sealed record TargetCall(DescriptorSource Source, string? Call, bool List)
{
    /// <summary>The call's request data, as read (the lessons take it with the call; a run's plans carry it).</summary>
    public string? Data { get; init; }

    /// <summary>The call's description options and its data (from --data, --data-file or stdin); null when nothing names a call or a list.</summary>
    public static bool TryRead(ParseResult parsed, LoadTestCommand command, out TargetCall? described, out string? data, out string error)
    {
        described = null;
        data = null;
        var call = parsed.GetValue(command.Call);
        var list = parsed.GetValue(command.List);
        var protos = parsed.GetValue(command.Proto) ?? [];
        string[] importPaths = [.. parsed.GetValue(command.ImportPath) ?? [],
            .. (parsed.GetValue(command.ImportPaths) ?? "").Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)];
        var protoset = parsed.GetValue(command.Protoset);
        error = (protos, importPaths, protoset, call, list) switch
        {
            ({ Length: > 0 }, _, not null, _, _) => "--proto and --protoset both describe the target; give one of them.",
            ({ Length: 0 }, { Length: > 0 }, _, _, _) => "--import-path and --import-paths are where --proto's imports are found; give the --proto files too.",
            _ when call is null && !list && (protos.Length > 0 || protoset is not null) =>
                $"{(protoset is null ? "--proto" : "--protoset")} describes the method --call names; give --call {DescribedPlan.CallForm} (or --list to see the methods).",
            _ => string.Empty,
        };
        if (error.Length > 0 || !TryData(parsed, command, out data, out error))
        {
            return false;
        }

        if (call is not null || list)
        {
            described = new TargetCall(new DescriptorSource(protos, importPaths, protoset), call, list) { Data = data };
        }

        return true;
    }

    /// <summary>
    /// The target described once, before any run: by its .proto files or protoset, or by its server reflection through the
    /// engine's own channel (so --cacert, --authority and --metadata apply to it too). Null and a sentence when it cannot be;
    /// what the target said in it is masked and escaped by <paramref name="text"/>, the engine's own.
    /// </summary>
    public async Task<(DescribedTarget? Target, string Problem)> DescribeAsync(ChannelFactory channels, TargetText text, EngineOptions engine, CancellationToken cancellation)
    {
        var handler = channels.CreateHandler();
        using var channel = channels.CreateChannel(handler);
        try
        {
            var options = new CallOptions(deadline: DateTime.UtcNow + engine.ConnectTimeout + engine.CallTimeout, cancellationToken: cancellation);
            // What it compiles is kept in the user's cache folder: the next run against the same descriptors starts at once.
            return (await DescribedTarget.DescribeAsync(Source, channels.CreateInvoker(channel), options, CompiledSetCache.ForUser()), string.Empty);
        }
        catch (TargetDescriptionException problem)
        {
            // A target that cannot be reached is said the way a run says it: why the connection or its handshake failed.
            return (null, problem.InnerException is { } cause && CallFailure.From(cause, text, channels.ServerUri.Scheme == Uri.UriSchemeHttp) is { } failure && (failure.Handshake || failure.Status == StatusCode.Unavailable)
                ? $"{channels.ServerUri.GetLeftPart(UriPartial.Authority)} could not be described by its server reflection: {failure.Described}."
                : text.Clean(problem.Message));
        }
        catch (Exception unexpected) when (!cancellation.IsCancellationRequested)
        {
            // Whatever a target serves ends in a sentence and exit 2, never a crash; its text is not quoted (it may be anything).
            return (null, $"{channels.ServerUri.GetLeftPart(UriPartial.Authority)} could not be described: describing it failed unexpectedly ({unexpected.GetType().Name}).");
        }
    }

    /// <summary>What --list prints: each method as --call names it, with its kind; with --call, that method's request as a JSON template.</summary>
    public void WriteList(DescribedTarget target, TextWriter output)
    {
        // The template is JSON, whose writer escapes what the target's names hold; a method's name is printed escaped.
        if (Call is not null)
        {
            output.WriteLine(target.Find(Call).RequestTemplate);
            return;
        }

        foreach (var method in target.Methods)
        {
            output.WriteLine(TargetText.Escape($"{method.Call} ({method.KindName})"));
        }
    }

    /// <summary>--data (@: stdin, as ghz reads it) or --data-file (-: stdin); not both.</summary>
    private static bool TryData(ParseResult parsed, LoadTestCommand command, out string? data, out string error)
    {
        var inline = parsed.GetValue(command.Data);
        var file = parsed.GetValue(command.DataFile);
        error = inline is not null && file is not null ? "--data and --data-file both give the request; give one of them."
            : file is not null && file != "-" && !File.Exists(file) ? $"--data-file '{file}' does not exist."
            : string.Empty;
        data = error.Length > 0 ? null : inline == "@" || file == "-" ? Console.In.ReadToEnd() : file is not null ? File.ReadAllText(file) : inline;
        return error.Length == 0;
    }
}
