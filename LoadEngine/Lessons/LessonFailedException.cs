using Grpc.Core;

namespace LoadEngine.Lessons;

/// <summary>A lesson scenario's call to the service failed; lessons are not stored runs, so this carries the call itself.</summary>
public sealed class LessonFailedException(string lesson, Uri serverUri, int calls, int completed, RpcException error)
    : Exception($"{lesson}: a call to {serverUri} failed with {error.StatusCode}: {error.Status.Detail}", error)
{
    public string Lesson { get; } = lesson;

    public Uri ServerUri { get; } = serverUri;

    public int Calls { get; } = calls;

    public int Completed { get; } = completed;

    public RpcException Error { get; } = error;
}
