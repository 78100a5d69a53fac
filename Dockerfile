# vidpub as a container: the single executable (npm run build:sea) on a slim Debian, run as a
# user that is not root. Build: docker build -t vidpub .
# Run:   docker run --rm -e VIDPUB_API_KEY -v "$PWD:/work" vidpub post /work/clip.mp4 --to youtube --caption "..." --no-input --json

# The executable is a copy of this stage's node with the app injected: same glibc as the base below.
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY . .
RUN npm run build:sea

FROM debian:bookworm-slim AS runtime
# Node carries its own CA certificates: nothing to install.
RUN useradd --create-home --uid 10001 --user-group vidpub
COPY --from=build /src/dist/sea/vidpub-linux-x64 /usr/local/bin/vidpub
USER vidpub
WORKDIR /home/vidpub
ENTRYPOINT ["/usr/local/bin/vidpub"]
CMD ["--help"]
