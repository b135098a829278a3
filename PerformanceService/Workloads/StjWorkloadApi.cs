using System.Text.Json;
using System.Text.Json.Serialization.Metadata;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.Extensions.Options;
using Workloads;
using M = Workloads.Model;

namespace PerformanceService.Workloads;

/// <summary>
/// The workloads as REST/JSON with System.Text.Json: minimal APIs under <c>/rest/stj/</c>, every body written and read
/// through the source-generated <see cref="WorkloadJsonContext"/> (camelCase, no reflection).
/// </summary>
public static class StjWorkloadApi
{
    public const string Prefix = "/rest/stj";

    private static WorkloadJsonContext Json => WorkloadJsonContext.Default;

    public static IEndpointRouteBuilder MapStjWorkloads(this IEndpointRouteBuilder app)
    {
        var api = app.MapGroup(Prefix);
        api.MapGet("/small-ints/{id}", (string id) => Answer(RestArguments.Id(id, out var valid), () => WorkloadAnswers.Item(WorkloadData.SmallInts, valid), Json.SmallInts));
        api.MapGet("/books/{id}", (string id) => Answer(RestArguments.Id(id, out var valid), () => WorkloadAnswers.Item(WorkloadData.Book, valid), Json.Book));
        api.MapGet("/books", () => TypedResults.Json(WorkloadAnswers.One(WorkloadData.Books), Json.BookList));
        api.MapGet("/big-dtos/{id}", (string id) => Answer(RestArguments.Id(id, out var valid), () => WorkloadAnswers.Item(WorkloadData.BigDto, valid), Json.BigDto));
        api.MapGet("/big-dtos", (string? page, string? size) =>
            Answer(RestArguments.Page(page, size, WorkloadRules.MaxBigDtoPageSize, out var p, out var s), () => WorkloadAnswers.BigDtos(p, s), Json.BigDtoList));
        api.MapGet("/users", (string? page, string? size) =>
            Answer(RestArguments.Page(page, size, WorkloadRules.MaxUserPageSize, out var p, out var s), () => WorkloadData.Users(p, s), Json.UserList));
        api.MapPost("/logs", WriteLogAsync);
        api.MapPost("/files", async (HttpRequest request, IOptions<WorkloadOptions> options) =>
        {
            var (ack, problem) = await RestUpload.ReadAsync(request, options.Value.MaxFileBytes);
            return Answer(problem, () => ack!, Json.WriteAck);
        });
        return app;
    }

    private static async Task<Results<JsonHttpResult<M.WriteAck>, ProblemHttpResult>> WriteLogAsync(HttpRequest request)
    {
        if (!request.HasJsonContentType())
        {
            return TypedResults.Problem(RestProblems.Create(StatusCodes.Status415UnsupportedMediaType, RestProblems.WrongContentType(request.ContentType, RestProblems.JsonContentType)));
        }

        M.LogRecord? record;
        try
        {
            record = await request.ReadFromJsonAsync(Json.LogRecord, request.HttpContext.RequestAborted);
        }
        catch (JsonException unreadable)
        {
            return TypedResults.Problem(RestProblems.Create(StatusCodes.Status400BadRequest, RestProblems.NotALogRecord(unreadable.Message)));
        }

        return record is null
            ? TypedResults.Problem(RestProblems.Create(StatusCodes.Status400BadRequest, RestProblems.NotALogRecord("it was null.")))
            : TypedResults.Json(new M.WriteAck { Checksum = WorkloadChecksum.Of(record), Length = 1 }, Json.WriteAck);
    }

    private static Results<JsonHttpResult<T>, ProblemHttpResult> Answer<T>(string? badRequest, Func<T> answer, JsonTypeInfo<T> type) =>
        badRequest is null ? TypedResults.Json(answer(), type) : TypedResults.Problem(RestProblems.Create(StatusCodes.Status400BadRequest, badRequest));

    private static Results<JsonHttpResult<T>, ProblemHttpResult> Answer<T>(Microsoft.AspNetCore.Mvc.ProblemDetails? problem, Func<T> answer, JsonTypeInfo<T> type) =>
        problem is null ? TypedResults.Json(answer(), type) : TypedResults.Problem(problem);
}
