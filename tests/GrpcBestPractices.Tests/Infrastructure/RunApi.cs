using System.Net;
using System.Net.Http.Json;
using System.Text;
using System.Text.Json;

namespace GrpcBestPractices.Tests.Infrastructure;

/// <summary>Small helpers for the gateway's /api: start a run, wait for it (bounded), read JSON.</summary>
public static class RunApi
{
    public static async Task<HttpResponseMessage> PostJsonAsync(this HttpClient http, string path, string json) =>
        await http.PostAsync(path, new StringContent(json, Encoding.UTF8, "application/json"));

    public static async Task<JsonElement> StartRunAsync(this HttpClient http, string json, string path = "/api/runs")
    {
        using var response = await http.PostJsonAsync(path, json);
        var body = await response.Content.ReadAsStringAsync();
        Assert.True(response.StatusCode == HttpStatusCode.Accepted, $"POST {path} answered {(int)response.StatusCode}: {body}");
        var view = JsonDocument.Parse(body).RootElement.Clone();
        Assert.Equal($"{path}/{view.GetProperty("id").GetString()}", response.Headers.Location?.ToString());
        return view;
    }

    /// <summary>Polls until the run or suite at <paramref name="path"/> is no longer Running.</summary>
    public static async Task<JsonElement> WaitUntilFinishedAsync(this HttpClient http, string path, TimeSpan? timeout = null)
    {
        var deadline = DateTime.UtcNow + (timeout ?? TimeSpan.FromSeconds(60));
        while (true)
        {
            var view = await http.GetJsonAsync(path);
            if (view.GetProperty("state").GetString() != "Running")
            {
                return view;
            }

            Assert.True(DateTime.UtcNow < deadline, $"{path} was still running after the wait: {view}");
            await Task.Delay(100);
        }
    }

    /// <summary>Waits (bounded) until the newest run is running and has completed at least <paramref name="calls"/> calls; returns its id.</summary>
    public static async Task<string> WaitForRunningProgressAsync(this HttpClient http, long calls, TimeSpan? timeout = null)
    {
        var deadline = DateTime.UtcNow + (timeout ?? TimeSpan.FromSeconds(60));
        string? id = null;
        while (true)
        {
            // The history lists runs without live progress; the run's own resource has it while it runs.
            id ??= (await http.GetJsonAsync("/api/runs?limit=1")).GetProperty("runs").EnumerateArray()
                .Where(run => run.GetProperty("state").GetString() == "Running").Select(run => run.GetProperty("id").GetString()).FirstOrDefault();
            if (id is not null)
            {
                var run = await http.GetJsonAsync($"/api/runs/{id}");
                Assert.True(run.GetProperty("state").GetString() == "Running", $"run {id} ended before {calls} calls completed: {run}");
                if (run.GetProperty("progress") is { ValueKind: JsonValueKind.Object } progress && progress.GetProperty("completed").GetInt64() >= calls)
                {
                    return id;
                }
            }

            Assert.True(DateTime.UtcNow < deadline, $"no run reached {calls} completed calls in time (run {id})");
            await Task.Delay(50);
        }
    }

    public static async Task<JsonElement> GetJsonAsync(this HttpClient http, string path)
    {
        using var response = await http.GetAsync(path);
        var body = await response.Content.ReadAsStringAsync();
        Assert.True(response.IsSuccessStatusCode, $"GET {path} answered {(int)response.StatusCode}: {body}");
        return JsonDocument.Parse(body).RootElement.Clone();
    }

    public static async Task<JsonElement> ReadJsonAsync(this HttpResponseMessage response) =>
        (await response.Content.ReadFromJsonAsync<JsonElement>()).Clone();
}
