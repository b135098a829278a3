using Microsoft.AspNetCore.Mvc;

namespace PerformanceService.Workloads;

/// <summary>The REST paths' failures as problem details (application/problem+json), alike on both serializers.</summary>
public static class RestProblems
{
    public const string JsonContentType = "application/json";
    public const string FileContentType = "application/octet-stream";

    public static ProblemDetails Create(int status, string detail)
    {
        var (section, title) = status switch
        {
            StatusCodes.Status413PayloadTooLarge => ("15.5.14", "File too large"),
            StatusCodes.Status415UnsupportedMediaType => ("15.5.16", "Unsupported media type"),
            _ => ("15.5.1", "Bad request"),
        };
        return new ProblemDetails { Type = $"https://tools.ietf.org/html/rfc9110#section-{section}", Title = title, Status = status, Detail = detail };
    }

    public static string WrongContentType(string? contentType, string expected) =>
        $"The body must be sent as {expected}; it was {(string.IsNullOrEmpty(contentType) ? "sent without a content type" : contentType)}.";

    public static string BadFraming(string reason) =>
        $"The body could not be read as HTTP/1.1 framed it ({reason.TrimEnd('.')}): send it with a Content-Length, or in chunks whose size line is a hexadecimal number that fits in 31 bits.";

    public static string NotALogRecord(string reason) =>
        $"The body is not a JSON log record ({{\"timestamp\", \"text\", \"level\", \"category\"}}): {reason}";
}
