using ApiGateway.Errors;
using LoadEngine.Lessons;
using ApiGateway.OpenApi;

namespace ApiGateway.Endpoints;

/// <summary>
/// The lesson routes' parameters, with the limits their handlers check, and the lessons' failure as the document's 503.
/// Kept beside the other routes' tables; the lessons' own file only names them.
/// </summary>
public static class LessonParameters
{
    public static RouteParameters KeepAlive { get; } = new(
    [
        RouteParameter.Whole("pauseMs", 0, KeepAliveLesson.MaxPauseMs, KeepAliveLesson.DefaultPauseMs,
            "Milliseconds both connections stay idle before the call that is timed; longer than the service's idle timeout (5 s) to see the lesson."),
    ]);

    public static RouteParameters Payload { get; } = new([RunParameters.PayloadBytes]);

    /// <summary>Declares a lesson route's parameters, and what it answers when its call to the service fails.</summary>
    public static RouteHandlerBuilder WithLessonParameters(this RouteHandlerBuilder route, RouteParameters parameters, string lesson) =>
        route.WithParameters(parameters).ProducesProblem(ProblemResponses.LessonFailedExample(lesson));
}
