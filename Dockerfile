# Build and run reclaimlab. The tested path is scripts/run.sh; this file is
# for people who deploy with Docker.
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --home-dir /app reclaimlab
WORKDIR /app
COPY --from=build /src/target/release/reclaimlab /usr/local/bin/reclaimlab
COPY --from=build /src/static /app/static
COPY --from=build /src/demo /app/demo
ENV RECLAIMLAB_STATIC_DIR=/app/static \
    RECLAIMLAB_DEMO_DIR=/app/demo \
    RECLAIMLAB_BIND=0.0.0.0:8080
USER reclaimlab
EXPOSE 8080
ENTRYPOINT ["reclaimlab"]
CMD ["serve"]
