import { useEffect, useState } from "preact/hooks";
import { api } from "./api.ts";
import { ErrorLine, useAction, when } from "./shared.tsx";

interface Job {
  id: string;
  account_id: string;
  state: string;
  phase: string | null;
  task: string;
  model: string;
  effort: string;
  file_count: number | null;
  upload_bytes: number | null;
  error: string | null;
  summary: string | null;
  claims: number;
  created_at: string;
  queued_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  expires_at: string;
}

const STATES = ["awaiting_upload", "queued", "running", "ready", "failed", "expired"];
const badge = (state: string) => (state === "ready" ? "ok" : state === "failed" || state === "expired" ? "bad" : "warn");
const size = (bytes: number | null) => (bytes === null ? "–" : bytes < 1024 ? `${bytes} B` : bytes < 1048576 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1048576).toFixed(1)} MiB`);

/** Smart+ jobs, newest first, with their state, times and sizes. */
export function Jobs() {
  const [state, setState] = useState("");
  const [jobs, setJobs] = useState<Job[]>([]);
  const [error, act] = useAction();
  useEffect(() => {
    void act(async () => setJobs((await api<{ data: Job[] }>("GET", `/admin/smartplus/jobs?limit=100${state ? `&state=${state}` : ""}`)).data));
  }, [state]);
  return (
    <>
      <h1>Smart+ jobs</h1>
      <section class="card" aria-labelledby="job-list">
        <h2 id="job-list">Jobs</h2>
        <form class="inline" onSubmit={(e) => e.preventDefault()}>
          <label>
            State
            <select value={state} onChange={(e) => setState(e.currentTarget.value)}>
              <option value="">any</option>
              {STATES.map((s) => <option value={s}>{s}</option>)}
            </select>
          </label>
        </form>
        <ErrorLine error={error} />
        <table>
          <thead>
            <tr>
              <th scope="col">job</th>
              <th scope="col">account</th>
              <th scope="col">state</th>
              <th scope="col">created</th>
              <th scope="col">finished</th>
              <th scope="col" class="num">files</th>
              <th scope="col" class="num">upload</th>
            </tr>
          </thead>
          <tbody>
            {jobs.map((job) => (
              <tr>
                <td><a href={`#/jobs/${job.id}`}>{job.id}</a></td>
                <td><a href={`#/accounts/${job.account_id}`}>{job.account_id}</a></td>
                <td><span class={`badge ${badge(job.state)}`}>{job.state}</span></td>
                <td>{when(job.created_at)}</td>
                <td>{when(job.finished_at)}</td>
                <td class="num">{job.file_count ?? "–"}</td>
                <td class="num">{size(job.upload_bytes)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {jobs.length === 0 && <p class="muted">No jobs.</p>}
      </section>
    </>
  );
}

/** One job: everything the API says of it. */
export function JobPage({ id }: { id: string }) {
  const [job, setJob] = useState<Job | null>(null);
  const [error, act] = useAction();
  useEffect(() => void act(async () => setJob(await api<Job>("GET", `/admin/smartplus/jobs/${id}`))), [id]);
  return (
    <>
      <p><a href="#/jobs">← Smart+ jobs</a></p>
      <h1>Job {id}</h1>
      <ErrorLine error={error} />
      {job && (
        <section class="card">
          <table>
            <tbody>
              <tr><th scope="row">state</th><td><span class={`badge ${badge(job.state)}`}>{job.state}</span> {job.phase ?? ""}</td></tr>
              <tr><th scope="row">account</th><td><a href={`#/accounts/${job.account_id}`}>{job.account_id}</a></td></tr>
              <tr><th scope="row">task</th><td>{job.task}</td></tr>
              <tr><th scope="row">model</th><td>{job.model} at effort {job.effort}</td></tr>
              <tr><th scope="row">upload</th><td>{job.file_count ?? "–"} files, {size(job.upload_bytes)}</td></tr>
              <tr><th scope="row">created</th><td>{when(job.created_at)}</td></tr>
              <tr><th scope="row">queued</th><td>{when(job.queued_at)}</td></tr>
              <tr><th scope="row">started</th><td>{when(job.started_at)} ({job.claims} claim{job.claims === 1 ? "" : "s"})</td></tr>
              <tr><th scope="row">finished</th><td>{when(job.finished_at)}</td></tr>
              <tr><th scope="row">expires</th><td>{when(job.expires_at)}</td></tr>
              {job.summary && <tr><th scope="row">summary</th><td>{job.summary}</td></tr>}
              {job.error && <tr><th scope="row">error</th><td class="error">{job.error}</td></tr>}
            </tbody>
          </table>
        </section>
      )}
    </>
  );
}
