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
