using Grpc.Core;
using LoadEngine.Targets;

namespace LoadEngine.Lessons;

/// <summary>
/// A lesson scenario's call to the service failed; lessons are not stored runs, so this carries the call itself, its
/// detail masked and escaped by <paramref name="text"/> as it enters the engine.
/// </summary>
public sealed class LessonFailedException(string lesson, Uri serverUri, int calls, int completed, RpcException error, TargetText text)
    : Exception($"{lesson}: a call to {serverUri} failed with {error.StatusCode}: {text.Clean(error.Status.Detail)}", error)
{
    public string Lesson { get; } = lesson;

    public Uri ServerUri { get; } = serverUri;

    public int Calls { get; } = calls;

    public int Completed { get; } = completed;

    public RpcException Error { get; } = error;

    /// <summary>The status detail the service sent, as it may be shown.</summary>
    public string Detail { get; } = text.Clean(error.Status.Detail);
}
