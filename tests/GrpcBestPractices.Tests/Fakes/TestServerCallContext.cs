using Grpc.Core;
using Microsoft.AspNetCore.Http;

namespace GrpcBestPractices.Tests.Fakes;

/// <summary>
/// A ServerCallContext for calling a service class directly (as eShop's Basket.UnitTests do). It carries an
/// HttpContext where grpc-dotnet's GetHttpContext() looks for one, with the connection id the test names.
/// </summary>
public sealed class TestServerCallContext : ServerCallContext
{
    private readonly Metadata _requestHeaders = [];
    private readonly Metadata _responseTrailers = [];
    private readonly Dictionary<object, object> _userState = [];
    private readonly CancellationToken _cancellationToken;

    private TestServerCallContext(string connectionId, CancellationToken cancellationToken)
    {
        _cancellationToken = cancellationToken;
        var http = new DefaultHttpContext();
        http.Connection.Id = connectionId;
        _userState["__HttpContext"] = http;
    }

    public static TestServerCallContext Create(string connectionId = "test-connection", CancellationToken cancellationToken = default) =>
        new(connectionId, cancellationToken);

    protected override string MethodCore => "/performance.Monitor/Test";

    protected override string HostCore => "localhost";

    protected override string PeerCore => "ipv4:127.0.0.1:1";

    protected override DateTime DeadlineCore => DateTime.MaxValue;

    protected override Metadata RequestHeadersCore => _requestHeaders;

    protected override CancellationToken CancellationTokenCore => _cancellationToken;

    protected override Metadata ResponseTrailersCore => _responseTrailers;

    protected override Status StatusCore { get; set; }

    protected override WriteOptions? WriteOptionsCore { get; set; }

    protected override AuthContext AuthContextCore { get; } = new(string.Empty, []);

    protected override IDictionary<object, object> UserStateCore => _userState;

    protected override ContextPropagationToken CreatePropagationTokenCore(ContextPropagationOptions? options) =>
        throw new NotSupportedException("The service under test does not propagate calls.");

    protected override Task WriteResponseHeadersAsyncCore(Metadata responseHeaders) => Task.CompletedTask;
}
