"""The ops project of the `shop` service: shell scripts (backup.sh keeps its trailing
whitespace on purpose), YAML config, docker-compose and Markdown docs, one in French.
"""
from __future__ import annotations

from .fixtures import F


OPS_FILES = {
    "README.md": F(r'''
# ops

Deployment scripts and configuration for the `shop` service.

- `scripts/deploy.sh` - roll out a tagged image to a cluster
- `scripts/backup.sh` - nightly database backup to object storage
- `config/app.yaml` - runtime configuration (mounted as a ConfigMap)
- `docker-compose.yml` - local development stack
- `docs/runbook.md` - what to do when things break
'''),
    "scripts/deploy.sh": F(r'''
#!/usr/bin/env bash
# Deploy a tagged image of the shop service.
# Usage: scripts/deploy.sh <environment> <tag>

ENVIRONMENT="$1"
TAG="$2"
NAMESPACE="shop-${ENVIRONMENT}"
IMAGE="registry.acme.test/shop:${TAG}"

usage() {
  echo "usage: $0 <staging|production> <tag>" >&2
  exit 64
}

[ -n "$ENVIRONMENT" ] || usage
[ -n "$TAG" ] || usage

case "$ENVIRONMENT" in
  staging|production) ;;
  *) usage ;;
esac

echo "Deploying ${IMAGE} to ${NAMESPACE}"
kubectl -n "$NAMESPACE" set image deployment/shop shop="$IMAGE"
kubectl -n "$NAMESPACE" rollout status deployment/shop --timeout=300s

echo "Running smoke test"
curl -fsS "https://${ENVIRONMENT}.shop.acme.test/healthz" > /dev/null
echo "Deployed ${TAG} to ${ENVIRONMENT}"
'''),
    "scripts/backup.sh": F(r'''
#!/bin/sh
# Nightly backup of the shop database to object storage.
set -eu

STAMP=$(date -u +%Y%m%dT%H%M%SZ)   
DUMP="/tmp/shop-${STAMP}.sql.gz"
BUCKET="${BACKUP_BUCKET:-s3://acme-backups/shop}"

log() {
    printf '%s %s\n' "$(date -u +%H:%M:%S)" "$*" 
}

log "dumping database"
pg_dump --no-owner --format=plain "$DATABASE_URL" | gzip -9 > "$DUMP"

log "uploading to ${BUCKET}"	
aws s3 cp "$DUMP" "${BUCKET}/$(basename "$DUMP")" --only-show-errors

log "cleaning up"
rm -f "$DUMP"

log "backup ${STAMP} done"
'''),
    "config/app.yaml": F(r'''
# Runtime configuration for the shop service.
server:
  port: 8080
  # request timeout in seconds
  requestTimeout: 10
  maxBodyBytes: 1048576

database:
  host: db.internal
  port: 5432
  name: shop
  pool:
    min: 2
    max: 20

cache:
  # Redis is optional; leave url empty to disable caching.
  url: ""
  ttlSeconds: 300

deployment:
  # number of replicas in staging
  replicas: 4
  resources:
    cpu: "500m"
    memory: "512Mi"

features:
  newCheckout: false
  giftCards: true
'''),
    "docker-compose.yml": F(r'''
version: "3.9"

services:
  app:
    build: .
    ports:
      - "8080:8080"
    environment:
      DATABASE_URL: postgres://shop:shop@db:5432/shop
      CONFIG_PATH: /etc/shop/app.yaml
    volumes:
      - ./config/app.yaml:/etc/shop/app.yaml:ro
    depends_on:
      - db

  db:
    image: postgres:16
    environment:
      POSTGRES_USER: shop
      POSTGRES_PASSWORD: shop
      POSTGRES_DB: shop
    volumes:
      - dbdata:/var/lib/postgresql/data

volumes:
  dbdata:
'''),
    "docs/runbook.md": F(r'''
# Runbook: shop service

## Symptoms and first steps

### Elevated 5xx rate

1. Check the dashboard "shop / overview" for the failing endpoint.
2. Look at the logs: `kubectl -n shop-production logs deploy/shop --since=15m`.
3. If a deploy happened in the last hour, consider a rollback.

### Database connections exhausted

1. Check `pg_stat_activity` for long running queries.
2. Raise `database.pool.max` only as a last resort.

## Deploys

Deploys go through `scripts/deploy.sh <environment> <tag>`. Production deploys
need an approval in the #deploys channel first.

## Backups

`scripts/backup.sh` runs nightly at 02:00 UTC from the `backup` CronJob.
Restores are tested monthly; see the calendar.

## Contacts

- On-call: see PagerDuty schedule "shop"
- Database: #team-data
'''),
    "docs/notes.md": F(r'''
# Notes techniques

Quelques notes sur l'infrastructure du service shop.

- Les sauvegardes sont chiffrées côté serveur (SSE-S3).
- Les déploiements en production nécessitent une approbation.
- Le cache Redis est désactivé par défaut.

## Réseau

Le service écoute sur le port 8080 derrière l'ingress `shop`.
Les connexions sortantes passent par le proxy `egress.internal:3128`.

## Base de données

PostgreSQL 16, réplique en lecture dans une deuxième zone.
Les migrations sont appliquées au démarrage par l'initContainer.
'''),
}
