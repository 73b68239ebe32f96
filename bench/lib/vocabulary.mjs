/**
 * The benchmark's word lists: the technical vocabulary a team's memory
 * holds. Order carries no meaning; the generator shuffles the terms with its
 * seed and then draws them with a Zipf-like distribution, so a few terms are
 * everywhere and most are rare, as in real notes.
 *
 * Pure data, no Node APIs: the generator test imports it inside workerd.
 */

export const TERMS = `
oauth token handling refresh session cookie jwt saml sso login auth permission role policy audit log logging
metrics tracing span alert pager incident outage rollback deploy deployment release canary feature flag config
secret vault key rotation certificate tls dns proxy gateway ingress load balancer cache redis memcached cdn edge
worker queue kafka topic consumer producer stream batch job cron scheduler retry backoff timeout latency
throughput rate limit quota billing invoice payment stripe webhook callback api rest graphql grpc schema
migration database postgres mysql sqlite index query replica shard partition backup snapshot restore storage
bucket blob upload download file image thumbnail video transcoding search ranking embedding vector model
inference training dataset pipeline etl warehouse dashboard report analytics event tracking user account
profile onboarding signup email notification push sms slack zoom github jira n8n workflow automation
integration sync import export csv json parser validator serializer compression encryption hash checksum
docker compose kubernetes helm terraform ansible ci build test lint coverage benchmark profiler memory leak
cpu thread pool connection socket websocket http client server sdk cli plugin extension frontend backend
mobile ios android react component router state store reducer hook render layout theme i18n locale
translation accessibility mfa otp captcha fraud risk compliance gdpr retention deletion consent tenant
organization team member invite calendar meeting timeline transcript recording chat message thread channel
bot assistant prompt agent memory context graph node edge relation entity observation document page wiki
note ticket issue bug fix patch hotfix regression sprint roadmap milestone estimate priority owner review
approval merge branch commit tag version changelog dependency package registry artifact container image
cluster region zone failover healthcheck probe readiness liveness autoscaling scaling capacity budget cost
usage limiter throttle circuit breaker fallback idempotency deduplication ordering consistency transaction
lock mutex deadlock contention isolation snapshotting compaction vacuum checkpoint wal journal replication
lag staleness ttl eviction warmup prefetch pagination cursor offset sorting filter aggregation join
normalization denormalization cdc outbox saga orchestration choreography broker pubsub fanout routing
`
  .trim()
  .split(/\s+/);

// biome-ignore format: a word list, packed
export const ENTITY_TYPES = [
  "service", "module", "library", "api", "workflow", "database", "decision", "incident", "team", "person",
  "runbook", "feature", "bug", "project", "config", "integration", "dashboard", "queue", "job", "document",
];

// biome-ignore format: a word list, packed
export const RELATION_TYPES = [
  "depends_on", "calls", "uses", "owned_by", "part_of", "implements", "replaces", "documents", "monitors",
  "triggers", "reads_from", "writes_to", "blocks", "relates_to",
];

// biome-ignore format: a word list, packed
export const PEOPLE = [
  "alice", "bruno", "chen", "dana", "emeka", "fatima", "gus", "hana", "ivan", "jules", "kenji", "lena", "maya",
  "nils", "olga", "priya", "quinn", "rosa", "sven", "tariq", "uma", "vera", "wes", "xia", "yusuf", "zoe",
];

/**
 * Observation templates. `{t}` is a vocabulary term, `{T}` the same upper-
 * cased, `{e}` an earlier entity's name, `{p}` a person, `{n}` a number,
 * `{y}` a year.
 */
export const TEMPLATES = [
  "Uses {t} for {t} {t}",
  "Owned by the {t} team, contact {p}",
  "Migrated from {t} to {t} in {y}",
  "Fails when {t} {t} exceeds {n} ms",
  "Depends on {e} for {t}",
  "Decision: prefer {t} over {t} because of {t} {t}",
  "Known issue: {t} {t} during {t}",
  "Configured via the {T}_{T} environment variable",
  "Runbook: restart the {t} {t}, then check {t}",
  "Handles about {n} {t} requests per second",
  "Documented in docs/{t}/{t}-{t}.md",
  "Added {t} {t} support in v{n}",
  "Tested with {t} and {t} under {t} load",
  "Calls {e} on every {t} {t}",
  "Incident {y}-{n}: {t} {t} caused {t} {t}",
  "Retries {t} with exponential backoff, max {n} attempts",
];
