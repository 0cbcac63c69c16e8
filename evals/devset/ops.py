"""Shell, YAML and Markdown cases: changes to the ops files of the `shop` service (deploy
and backup scripts, app config, docker-compose, the runbook, non-ASCII names, mode changes,
requested comment and whitespace fixes) and the one-defect variants made from them."""
from __future__ import annotations

import re

from .cases import DROP, CaseSet, mk_failure, mk_result, mk_step, relocated_result, with_
from .changes import ChangeMaker
from .corpus.fixtures import F

DEPLOY_STRICT_STEP = ("Make scripts/deploy.sh abort on errors (set -euo pipefail) and fail early "
                      "with a clear message when kubectl is missing.")
TIMEOUT_STEP = "Raise the server request timeout to 30 seconds in config/app.yaml."

ROTATE_LOGS_SH = F(r'''
#!/usr/bin/env bash
# Compress shop logs older than a day and delete archives older than 30 days.
# Usage: scripts/rotate-logs.sh [log-dir]
set -euo pipefail

LOG_DIR="${1:-/var/log/shop}"
KEEP_DAYS="${KEEP_DAYS:-30}"

if [ ! -d "$LOG_DIR" ]; then
  echo "no such directory: $LOG_DIR" >&2
  exit 1
fi

find "$LOG_DIR" -name '*.log' -type f -mtime +0 -print0 |
  while IFS= read -r -d '' file; do
    gzip -9 "$file"
    echo "compressed $file"
  done

find "$LOG_DIR" -name '*.log.gz' -type f -mtime +"$KEEP_DAYS" -delete
echo "rotation done in $LOG_DIR"
''')

DEPLOIEMENT_MD = F(r'''
# Guide de déploiement

1. Vérifier que la CI est verte sur `main`.
2. Créer le tag : `git tag vX.Y.Z && git push --tags`.
3. Lancer `scripts/deploy.sh staging vX.Y.Z` puis vérifier le tableau de bord.
4. Après validation, lancer `scripts/deploy.sh production vX.Y.Z`.

En cas de problème, suivre la section « Rolling back » du runbook.
''')


def build(make: ChangeMaker, cases: CaseSet) -> None:
    """Every ops case, in the order that numbers their steps (see CaseSet)."""
    _deploy_strict_mode(make, cases)
    _new_executable_script(make, cases)
    _raise_timeout(make, cases)
    _dotdot_shared_config(make, cases)
    _runbook_rollback(make, cases)
    _requested_yaml_comment(make, cases)
    _compose_healthcheck(make, cases)
    _compose_outside_allowed(make, cases)
    _comments_instead_of_behaviour(make, cases)
    _remove_executable_bit(make, cases)
    _requested_trailing_whitespace(make, cases)
    _non_ascii_names(make, cases)
    _failure_report(cases)


def _deploy_strict_mode(make: ChangeMaker, cases: CaseSet) -> None:
    dep = make.change("ops", [
        ("edit", "scripts/deploy.sh", "# Usage: scripts/deploy.sh <environment> <tag>\n\n",
         "# Usage: scripts/deploy.sh <environment> <tag>\nset -euo pipefail\n\n"),
        ("edit", "scripts/deploy.sh", 'ENVIRONMENT="$1"\nTAG="$2"\n',
         'ENVIRONMENT="${1:-}"\nTAG="${2:-}"\n'),
        ("edit", "scripts/deploy.sh", 'echo "Deploying ${IMAGE} to ${NAMESPACE}"\n',
         'if ! command -v kubectl >/dev/null 2>&1; then\n'
         '  echo "kubectl is not installed or not on PATH" >&2\n  exit 69\nfi\n\n'
         'echo "Deploying ${IMAGE} to ${NAMESPACE}"\n'),
    ])
    st, rs = cases.add("valid/sh-deploy-strict-mode", mk_step(DEPLOY_STRICT_STEP, allowed=["scripts/*.sh"]),
                       mk_result(dep, "deploy.sh uses strict mode and checks for kubectl."))
    cases.add("mode_mismatch/sh-apply-step-fix-result", st, with_(rs, mode="fix_regression"),
              "mode_mismatch")
    cases.add("missing_files_written/sh-absent", st, with_(rs, filesWritten=DROP), "missing_files_written")
    cases.add("malformed_patch/sh-hunk-header-without-ranges", st,
              with_(rs, patch=re.sub(r"^@@ -\d+(,\d+)? \+\d+(,\d+)? @@", "@@ @@", dep.patch,
                                     count=1, flags=re.M)), "malformed_patch")


def _new_executable_script(make: ChangeMaker, cases: CaseSet) -> None:
    """A new file created with mode 755."""
    rot = make.change("ops", [
        ("write", "scripts/rotate-logs.sh", ROTATE_LOGS_SH),
        ("chmod", "scripts/rotate-logs.sh", 0o755),
    ])
    assert "new file mode 100755" in rot.patch
    cases.add("valid/sh-new-executable-script",
              mk_step("Add an executable scripts/rotate-logs.sh that gzips logs older than a "
                      "day and deletes archives older than KEEP_DAYS (default 30).",
                      allowed=["scripts/**"]),
              mk_result(rot, "Added scripts/rotate-logs.sh (mode 755)."))
    cases.add("failure_without_summary/sh-summary-whitespace", mk_step(DEPLOY_STRICT_STEP),
              mk_failure("  \n", touched=["scripts/deploy.sh"]), "failure_without_summary",
              tags=["shell"])


def _raise_timeout(make: ChangeMaker, cases: CaseSet) -> None:
    tmo = make.change("ops", [("edit", "config/app.yaml", "  requestTimeout: 10\n", "  requestTimeout: 30\n")])
    st, rs = cases.add("valid/yaml-raise-timeout",
                       mk_step(TIMEOUT_STEP, allowed=["config/**"]),
                       mk_result(tmo, "server.requestTimeout is now 30."))
    cases.add("file_not_in_patch/yaml-claims-compose", st,
              with_(rs, filesWritten=["config/app.yaml", "config/app.staging.yaml"],
                    filesTouched=["config/app.yaml", "config/app.staging.yaml"]), "file_not_in_patch")


def _dotdot_shared_config(make: ChangeMaker, cases: CaseSet) -> None:
    """Made under escape/, then moved to ../, outside the repository (relocated_result)."""
    esc = make.change("ops", [("write", "escape/shared/config.yaml",
                               "# Shared defaults for all services\nserver:\n  requestTimeout: 10\n  port: 8080\n")])
    esc2 = make.followup(esc, [("edit", "escape/shared/config.yaml", "  requestTimeout: 10\n",
                                "  requestTimeout: 30\n")])
    cases.add("unsafe_path/yaml-dotdot-shared-config",
              mk_step(TIMEOUT_STEP),
              relocated_result(esc2, "Raised the timeout in the shared defaults.", "escape/", "../"),
              "unsafe_path")


def _runbook_rollback(make: ChangeMaker, cases: CaseSet) -> None:
    rb = make.change("ops", [
        ("edit", "docs/runbook.md", "## Backups\n",
         "### Rolling back\n\n"
         "1. Find the previous tag: `kubectl -n shop-production rollout history deploy/shop`.\n"
         "2. Run `kubectl -n shop-production rollout undo deploy/shop`.\n"
         "3. Watch `rollout status` and the 5xx graph for 10 minutes.\n"
         "4. Post the rollback and the reason in #deploys.\n\n## Backups\n"),
    ])
    st, rs = cases.add("valid/md-runbook-rollback",
                       mk_step("Document the rollback procedure in docs/runbook.md under Deploys.",
                               allowed=["*.md"]),
                       mk_result(rb, "Added a 'Rolling back' section to the runbook."))
    cases.add("undeclared_file/md-hidden-readme", st,
              with_(rs, patch=rb.patch + make.change("ops", [
              ("edit", "README.md", "- `docs/runbook.md` - what to do when things break\n",
               "- `docs/runbook.md` - what to do when things break (incl. rollbacks)\n")]).patch),
              "undeclared_file")


def _requested_yaml_comment(make: ChangeMaker, cases: CaseSet) -> None:
    yc = make.change("ops", [("edit", "config/app.yaml", "  # number of replicas in staging\n",
                              "  # number of replicas in production (staging always runs 1)\n")])
    cases.add("valid/yaml-comment-fix-requested",
              mk_step("Fix the misleading comment above deployment.replicas in config/app.yaml: the "
                      "value is for production, staging always runs one replica."),
              mk_result(yc, "Corrected the replicas comment."), tags=["comment-only"])


def _compose_healthcheck(make: ChangeMaker, cases: CaseSet) -> None:
    hc = make.change("ops", [
        ("edit", "docker-compose.yml", "    depends_on:\n      - db\n",
         "    depends_on:\n      db:\n        condition: service_healthy\n"),
        ("edit", "docker-compose.yml", "      - dbdata:/var/lib/postgresql/data\n",
         "      - dbdata:/var/lib/postgresql/data\n    healthcheck:\n"
         "      test: [\"CMD-SHELL\", \"pg_isready -U shop -d shop\"]\n"
         "      interval: 5s\n      timeout: 3s\n      retries: 10\n"),
    ])
    st, rs = cases.add("valid/yaml-compose-healthcheck",
                       mk_step("Add a healthcheck to the db service in docker-compose.yml and make app "
                               "wait until the database is healthy."),
                       mk_result(hc, "db has a pg_isready healthcheck; app waits for service_healthy."))
    cases.add("invalid_mode/yaml-run", st, with_(rs, mode="run"), "invalid_mode")


def _compose_outside_allowed(make: ChangeMaker, cases: CaseSet) -> None:
    out = make.change("ops", [
        ("edit", "config/app.yaml", "  url: \"\"\n", "  url: \"redis://cache:6379/0\"\n"),
        ("edit", "docker-compose.yml", "volumes:\n  dbdata:\n",
         "  cache:\n    image: redis:7-alpine\n\nvolumes:\n  dbdata:\n"),
    ])
    cases.add("scope_outside_allowed/yaml-compose-outside-config",
              mk_step("Point the cache at redis://cache:6379/0 in the app config.", allowed=["config/**"]),
              mk_result(out, "Set cache.url and added a redis service to compose."),
              "scope_outside_allowed")


def _comments_instead_of_behaviour(make: ChangeMaker, cases: CaseSet) -> None:
    """A commented-out service and a comment promising retries: nothing that runs."""
    sup = make.change("ops", [
        ("edit", "docker-compose.yml", "volumes:\n  dbdata:\n",
         "  # cache:\n  #   image: redis:7-alpine\n  #   ports:\n  #     - \"6379:6379\"\n\n"
         "volumes:\n  dbdata:\n"),
    ])
    cases.add("superficial_only/yaml-commented-out-service",
              mk_step("Add a Redis service named cache to docker-compose.yml for local development."),
              mk_result(sup, "Added the cache service to docker-compose.yml."), "superficial_only")
    sup2 = make.change("ops", [
        ("edit", "scripts/backup.sh", 'log "uploading to ${BUCKET}"\t\n',
         '# Upload the dump. The S3 endpoint is flaky at night, so this step\n'
         '# should be retried a few times before the job gives up.\n'
         'log "uploading to ${BUCKET}"\t\n'),
    ])
    cases.add("superficial_only/sh-comment-instead-of-retry",
              mk_step("Make scripts/backup.sh retry the S3 upload up to 3 times with a 10 second pause."),
              mk_result(sup2, "backup.sh retries the upload 3 times."), "superficial_only")


def _remove_executable_bit(make: ChangeMaker, cases: CaseSet) -> None:
    chm = make.change("ops", [("chmod", "docs/runbook.md", 0o644)])
    assert "old mode 100755\nnew mode 100644" in chm.patch
    st, _ = cases.add("valid/md-remove-executable-bit",
                      mk_step("Remove the executable bit from docs/runbook.md."),
                      mk_result(chm, "chmod -x docs/runbook.md."))
    cases.add("failure_without_summary/md-summary-dash-error", st,
              mk_failure("Error", omit=True), "failure_without_summary", tags=["markdown"])


def _strip_trailing_whitespace(text: str) -> str:
    return "\n".join(l.rstrip(" \t") for l in text.split("\n"))


def _requested_trailing_whitespace(make: ChangeMaker, cases: CaseSet) -> None:
    ws = make.change("ops", [("sub", "scripts/backup.sh", _strip_trailing_whitespace)])
    cases.add("valid/sh-trailing-whitespace-requested",
              mk_step("Remove the trailing whitespace from scripts/backup.sh (the linter flags three "
                      "lines); do not change anything else."),
              mk_result(ws, "Stripped trailing spaces/tabs on 3 lines of backup.sh."),
              tags=["whitespace-only"])


def _non_ascii_names(make: ChangeMaker, cases: CaseSet) -> None:
    """git quotes these names in octal ("b/docs/d\\303\\251ploiement.md"); the
    declared files keep the real names."""
    fr = make.change("ops", [("write", "docs/déploiement.md", DEPLOIEMENT_MD)])
    assert '"b/docs/d\\303\\251ploiement.md"' in fr.patch
    st, rs = cases.add("valid/md-non-ascii-new-file",
                       mk_step("Add a French deployment guide as docs/déploiement.md.", allowed=["docs/**"]),
                       mk_result(fr, "Added docs/déploiement.md."))
    cases.add("missing_patch/md-absent-non-ascii", st, with_(rs, patch=DROP), "missing_patch")
    mv = make.change("ops", [
        ("mv", "docs/notes.md", "docs/notes réseau.md"),
        ("edit", "docs/notes réseau.md", "# Notes techniques\n", "# Notes techniques : réseau\n"),
    ], flags=("-M",))
    assert 'rename to "docs/notes r\\303\\251seau.md"' in mv.patch
    st, rs = cases.add("valid/md-rename-to-quoted-name",
                       mk_step("Rename docs/notes.md to \"docs/notes réseau.md\" and say so in its title."),
                       mk_result(mv, "Renamed the notes file and updated the heading."))


def _failure_report(cases: CaseSet) -> None:
    cases.add("valid/sh-failure-report-no-access",
              mk_step("Add the production database host to config/app.yaml."),
              mk_failure("Could not apply: the production host is not in the repository or the step "
                         "description, and guessing it would be unsafe.", touched=["config/app.yaml"]),
              project="ops")
