using Microsoft.AspNetCore.Mvc;
using Microsoft.AspNetCore.Mvc.Filters;
using Microsoft.Extensions.Options;
using Workloads;
using M = Workloads.Model;

namespace PerformanceService.Workloads;

/// <summary>
/// The workloads as REST/JSON with Newtonsoft.Json, the way a classic ASP.NET Core Web API serves them: an MVC controller
/// under <c>/rest/newtonsoft/</c> whose bodies go through MVC's Newtonsoft formatters (<see cref="WorkloadNewtonsoft"/> settings).
/// </summary>
[Route(Prefix)]
public sealed class NewtonsoftWorkloadsController(IOptions<WorkloadOptions> options) : ControllerBase
{
    public const string Prefix = "rest/newtonsoft";

    [HttpGet("small-ints/{id}")]
    public ActionResult<M.SmallInts> SmallInts(string id) => Answer(RestArguments.Id(id, out var valid), () => WorkloadAnswers.Item(WorkloadData.SmallInts, valid));

    [HttpGet("books/{id}")]
    public ActionResult<M.Book> Book(string id) => Answer(RestArguments.Id(id, out var valid), () => WorkloadAnswers.Item(WorkloadData.Book, valid));

    [HttpGet("books")]
    public ActionResult<M.BookList> Books() => WorkloadAnswers.One(WorkloadData.Books);

    [HttpGet("big-dtos/{id}")]
    public ActionResult<M.BigDto> BigDto(string id) => Answer(RestArguments.Id(id, out var valid), () => WorkloadAnswers.Item(WorkloadData.BigDto, valid));

    [HttpGet("big-dtos")]
    public ActionResult<M.BigDtoList> BigDtos([FromQuery] string? page, [FromQuery] string? size) =>
        Answer(RestArguments.Page(page, size, WorkloadRules.MaxBigDtoPageSize, out var p, out var s), () => WorkloadAnswers.BigDtos(p, s));

    [HttpGet("users")]
    public ActionResult<M.UserList> Users([FromQuery] string? page, [FromQuery] string? size) =>
        Answer(RestArguments.Page(page, size, WorkloadRules.MaxUserPageSize, out var p, out var s), () => WorkloadData.Users(p, s));

    [HttpPost("logs")]
    [RequireJsonBody]
    public ActionResult<M.WriteAck> WriteLog([FromBody] M.LogRecord? record)
    {
        if (!ModelState.IsValid || record is null)
        {
            var reason = ModelState.Values.SelectMany(entry => entry.Errors).Select(error => error.ErrorMessage).FirstOrDefault(message => message.Length > 0);
            return ProblemResult(RestProblems.Create(StatusCodes.Status400BadRequest, RestProblems.NotALogRecord(reason ?? "it was null.")));
        }

        return new M.WriteAck { Checksum = WorkloadChecksum.Of(record), Length = 1 };
    }

    [HttpPost("files")]
    public async Task<ActionResult<M.WriteAck>> Upload()
    {
        var (ack, problem) = await RestUpload.ReadAsync(Request, options.Value.MaxFileBytes);
        return problem is null ? ack! : ProblemResult(problem);
    }

    public static ObjectResult ProblemResult(ProblemDetails problem) => new(problem)
    {
        StatusCode = problem.Status,
        ContentTypes = { "application/problem+json" },
    };

    private static ActionResult<T> Answer<T>(string? badRequest, Func<T> answer) =>
        badRequest is null ? answer() : ProblemResult(RestProblems.Create(StatusCodes.Status400BadRequest, badRequest));

    /// <summary>
    /// A body that is not JSON is a 415 naming what is allowed; checked before MVC's formatters try to read it (they
    /// would answer a bare 415 of their own).
    /// </summary>
    private sealed class RequireJsonBodyAttribute : Attribute, IAsyncResourceFilter
    {
        public Task OnResourceExecutionAsync(ResourceExecutingContext context, ResourceExecutionDelegate next)
        {
            if (context.HttpContext.Request.HasJsonContentType())
            {
                return next();
            }

            context.Result = ProblemResult(RestProblems.Create(
                StatusCodes.Status415UnsupportedMediaType, RestProblems.WrongContentType(context.HttpContext.Request.ContentType, RestProblems.JsonContentType)));
            return Task.CompletedTask;
        }
    }
}
