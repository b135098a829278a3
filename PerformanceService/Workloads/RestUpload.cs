using System.IO.Pipelines;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Net.Http.Headers;
using M = Workloads.Model;

namespace PerformanceService.Workloads;

/// <summary>
/// REST's file upload on both serializers' routes: the body read segment by segment as it arrives, each segment hashed
/// and released, so the file is never held whole; either an acknowledgement or the problem to answer.
/// </summary>
public static class RestUpload
{
    public static async Task<(M.WriteAck? Ack, ProblemDetails? Problem)> ReadAsync(HttpRequest request, long maxBytes)
    {
        if (!MediaTypeHeaderValue.TryParse(request.ContentType, out var mediaType) || !mediaType.MediaType.Equals(RestProblems.FileContentType, StringComparison.OrdinalIgnoreCase))
        {
            return (null, RestProblems.Create(StatusCodes.Status415UnsupportedMediaType, RestProblems.WrongContentType(request.ContentType, RestProblems.FileContentType)));
        }

        if (request.ContentLength > maxBytes)
        {
            return TooLarge(maxBytes);
        }

        // This route's body limit is the upload maximum; every other route keeps Kestrel's default.
        if (request.HttpContext.Features.Get<IHttpMaxRequestBodySizeFeature>() is { IsReadOnly: false } limit)
        {
            limit.MaxRequestBodySize = maxBytes;
        }

        var upload = new FileUpload(maxBytes);
        try
        {
            if (!await HashAsync(request.BodyReader, upload, request.HttpContext.RequestAborted))
            {
                return TooLarge(maxBytes);
            }
        }
        catch (BadHttpRequestException overLimit) when (overLimit.StatusCode == StatusCodes.Status413PayloadTooLarge)
        {
            return TooLarge(maxBytes);
        }

        return (new M.WriteAck { Checksum = upload.Checksum, Length = upload.Length }, null);
    }

    private static (M.WriteAck?, ProblemDetails?) TooLarge(long maxBytes) =>
        (null, RestProblems.Create(StatusCodes.Status413PayloadTooLarge, WorkloadRules.FileTooLarge(maxBytes)));

    private static async Task<bool> HashAsync(PipeReader body, FileUpload upload, CancellationToken cancellationToken)
    {
        while (true)
        {
            var read = await body.ReadAsync(cancellationToken);
            var fits = upload.TryAppend(read.Buffer);
            body.AdvanceTo(read.Buffer.End);
            if (!fits)
            {
                return false;
            }

            if (read.IsCompleted)
            {
                return true;
            }
        }
    }
}
