using System.Globalization;
using System.Text;
using System.Text.RegularExpressions;
using Google.Protobuf.Reflection;
using LoadEngine.Targets.Described;

namespace LoadEngine.Checkup;

/// <summary>
/// The C# names protoc's csharp generator gives the user's method (Grpc.Tools): the client class, the request type, the
/// unary and bidirectional methods' names, and the address. A name from a descriptor that is not a C# identifier path is
/// never written into code: the package's own name stands in for it.
/// </summary>
public sealed partial record ClientNames(string Client, string Request, string Method, string? StreamMethod, string Address)
{
    public static ClientNames Of(DescribedMethod unary, DescribedMethod? stream, Uri address)
    {
        var service = unary.Descriptor.Service;
        return new ClientNames(
            $"{Namespace(service.File)}.{service.Name}.{service.Name}Client",
            TypeName(unary.Descriptor.InputType),
            unary.Descriptor.Name,
            stream?.Descriptor.Name,
            address.ToString().TrimEnd('/'));
    }

    private static string TypeName(MessageDescriptor type)
    {
        var nested = type.Name;
        for (var outer = type.ContainingType; outer is not null; outer = outer.ContainingType)
        {
            nested = $"{outer.Name}.Types.{nested}";
        }

        return $"{Namespace(type.File)}.{nested}";
    }

    /// <summary>csharp_namespace when it is a C# name, else the package in PascalCase, as protoc makes it ("interop.inventory" is Interop.Inventory).</summary>
    private static string Namespace(FileDescriptor file)
    {
        var option = file.GetOptions()?.CsharpNamespace;
        if (!string.IsNullOrEmpty(option) && CSharpName().IsMatch(option))
        {
            return option;
        }

        return string.Join('.', file.Package.Split('.').Select(part => string.Concat(part.Split('_', StringSplitOptions.RemoveEmptyEntries)
            .Select(word => char.ToUpperInvariant(word[0]) + word[1..]))));
    }

    [GeneratedRegex(@"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")]
    private static partial Regex CSharpName();
}

/// <summary>
/// The code change each item of a checkup prescribes, for the user's own client: a few lines a .NET developer pastes, the
/// using directives first. Each snippet compiles against Grpc.Net.Client as statements of a method that has
/// <c>request</c> (the method's request) and <c>services</c> (an IServiceCollection) in scope; a test compiles every one.
/// </summary>
public static class CheckupCode
{
    public static string ReuseChannel(ClientNames names) => Code(
        ["Grpc.Net.Client"],
        "// Once per address, for the app's life (a static field or a DI singleton): a channel is thread-safe and keeps its connections.",
        $"var channel = GrpcChannel.ForAddress({Literal(names.Address)});",
        "// Per call, if you like: a client on a kept channel costs next to nothing.",
        $"var client = new {names.Client}(channel);",
        $"var reply = await client.{names.Method}Async(request);");

    public static string FactoryClient(ClientNames names) => Code(
        ["Grpc.Net.Client", "Microsoft.Extensions.DependencyInjection"],
        "// The client factory's handler chain cost more per call here: on the hot path, keep one channel instead.",
        $"var channel = GrpcChannel.ForAddress({Literal(names.Address)});",
        $"services.AddSingleton(new {names.Client}(channel));");

    public static string Capacity(ClientNames names, int inFlight) => Code(
        ["Grpc.Net.Client"],
        $"// At most {inFlight} {(inFlight == 1 ? "call" : "calls")} in flight: past that the service answered no more calls per second, only later.",
        $"var inFlight = new SemaphoreSlim({inFlight});",
        $"var client = new {names.Client}(GrpcChannel.ForAddress({Literal(names.Address)}));",
        "await inFlight.WaitAsync();",
        "try",
        "{",
        $"    var reply = await client.{names.Method}Async(request);",
        "}",
        "finally",
        "{",
        "    inFlight.Release();",
        "}");

    public static string Connections(ClientNames names) => Code(
        ["Grpc.Net.Client"],
        "// When one HTTP/2 connection's streams are all busy, open another instead of queueing the call.",
        $"var channel = GrpcChannel.ForAddress({Literal(names.Address)}, new GrpcChannelOptions",
        "{",
        "    HttpHandler = new SocketsHttpHandler { EnableMultipleHttp2Connections = true },",
        "});",
        $"var client = new {names.Client}(channel);");

    public static string KeepAlive(ClientNames names, TimeSpan pingDelay) => Code(
        ["Grpc.Net.Client"],
        $"// A PING every {Seconds(pingDelay)} s keeps an idle connection open through an idle timeout longer than that.",
        $"var channel = GrpcChannel.ForAddress({Literal(names.Address)}, new GrpcChannelOptions",
        "{",
        "    HttpHandler = new SocketsHttpHandler",
        "    {",
        $"        KeepAlivePingDelay = TimeSpan.FromSeconds({Seconds(pingDelay)}),",
        "        KeepAlivePingTimeout = TimeSpan.FromSeconds(10),",
        "        KeepAlivePingPolicy = HttpKeepAlivePingPolicy.Always,",
        "        PooledConnectionIdleTimeout = Timeout.InfiniteTimeSpan,",
        "        EnableMultipleHttp2Connections = true,",
        "    },",
        "});",
        $"var client = new {names.Client}(channel);");

    public static string Streaming(ClientNames names) => Code(
        ["Grpc.Core", "Grpc.Net.Client"],
        $"var client = new {names.Client}(GrpcChannel.ForAddress({Literal(names.Address)}));",
        $"using var call = client.{names.StreamMethod}();",
        "// Read the answers while the requests go out, without waiting for each one.",
        "var answers = Task.Run(async () =>",
        "{",
        "    await foreach (var reply in call.ResponseStream.ReadAllAsync())",
        "    {",
        "        Console.WriteLine(reply);",
        "    }",
        "});",
        "foreach (var message in new[] { request })",
        "{",
        "    await call.RequestStream.WriteAsync(message);",
        "}",
        "",
        "await call.RequestStream.CompleteAsync();",
        "await answers;");

    public static string Compression(ClientNames names) => Code(
        ["Grpc.Core", "Grpc.Net.Client"],
        $"var client = new {names.Client}(GrpcChannel.ForAddress({Literal(names.Address)}));",
        "// grpc-dotnet gzips the request when this header is set, and sends grpc-encoding: gzip instead.",
        $"var headers = new Metadata {{ {{ \"{CompressionProbe.RequestEncodingHeader}\", \"gzip\" }} }};",
        $"var reply = await client.{names.Method}Async(request, headers);");

    public static string Deadline(ClientNames names, double milliseconds) => Code(
        ["Grpc.Core", "Grpc.Net.Client"],
        $"var client = new {names.Client}(GrpcChannel.ForAddress({Literal(names.Address)}));",
        "try",
        "{",
        $"    var reply = await client.{names.Method}Async(request, deadline: DateTime.UtcNow.AddMilliseconds({milliseconds.ToString("0.#", CultureInfo.InvariantCulture)}));",
        "}",
        "catch (RpcException late) when (late.StatusCode == StatusCode.DeadlineExceeded)",
        "{",
        "    // Slower than 999 calls in 1 000 were at your load: fail fast, or retry once elsewhere.",
        "    Console.WriteLine(late.Status.Detail);",
        "}");

    private static string Code(string[] usings, params string[] lines)
    {
        var code = new StringBuilder();
        foreach (var name in usings)
        {
            code.Append("using ").Append(name).Append(";\n");
        }

        code.Append('\n');
        foreach (var line in lines)
        {
            code.Append(line).Append('\n');
        }

        return code.ToString();
    }

    /// <summary>A C# string literal: an address is a URI, escaped, but a backslash or quote would still end the literal.</summary>
    private static string Literal(string text) => $"\"{text.Replace("\\", "\\\\", StringComparison.Ordinal).Replace("\"", "\\\"", StringComparison.Ordinal)}\"";

    private static string Seconds(TimeSpan span) => span.TotalSeconds.ToString("0.#", CultureInfo.InvariantCulture);
}
