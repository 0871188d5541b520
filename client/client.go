package client

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// defaultConnectTimeout applies when Config.ConnectTimeout is 0.
const defaultConnectTimeout = 10 * time.Second

// Client sends streamed requests to one OpenAI-compatible server and
// measures them. It is safe for concurrent use.
type Client struct {
	cfg       Config
	hc        *http.Client
	tr        *http.Transport // hc's
	endpoint  string          // the chat/completions or completions URL
	modelsURL string
	// What messages name instead: no credentials, no query.
	showBase, showEndpoint, showModels string

	body    bodyTemplate
	vars    []variant // Config.Variants, checked and encoded
	epoch   time.Time
	epochNS int64    // epoch as Unix nanoseconds, for SendLag
	secrets []string // every credential, scrubbed from anything the client produces
}

// New validates cfg and builds a client with its own connection pool. The
// client's clock (Now) starts here.
func New(cfg Config) (*Client, error) {
	c := &Client{cfg: cfg}
	c.cfg.Headers = cfg.Headers.Clone()
	c.secrets = secretsOf(cfg)
	base, err := c.parseBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	if strings.ContainsFunc(cfg.APIKey, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return nil, errors.New("the API key contains control characters (a stray newline?)")
	}
	if err := checkHeaders(cfg.Headers); err != nil {
		return nil, err
	}
	switch cfg.API {
	case "":
		c.cfg.API = Chat
	case Chat, Completions:
	default:
		return nil, fmt.Errorf("unknown API %q (want %q or %q)", cfg.API, Chat, Completions)
	}
	if c.body, err = newBodyTemplate(c.cfg); err != nil {
		return nil, err
	}
	if c.vars, err = c.variants(); err != nil {
		return nil, err
	}
	ep := base.JoinPath(string(c.cfg.API))
	if c.cfg.API == Chat {
		ep = base.JoinPath("chat", "completions")
	}
	models := base.JoinPath("models")
	c.endpoint, c.modelsURL = ep.String(), models.String()
	c.showBase, c.showEndpoint, c.showModels = showURL(base), showURL(ep), showURL(models)
	c.tr = newTransport(cfg)
	c.hc = &http.Client{Transport: c.tr, CheckRedirect: noRedirects}
	c.epoch = time.Now()
	c.epochNS = c.epoch.UnixNano()
	return c, nil
}

// Now is the time elapsed since New on the monotonic clock: the one clock
// every instant of a run is measured on.
func (c *Client) Now() time.Duration { return time.Since(c.epoch) }

// Epoch is the instant Now counts from.
func (c *Client) Epoch() time.Time { return c.epoch }

// String describes the client without credentials, so that printing one by
// mistake leaks nothing.
func (c *Client) String() string {
	return fmt.Sprintf("client.Client{%s %s model=%q}", c.showEndpoint, c.cfg.API, c.cfg.Model)
}

// parseBaseURL checks that raw is an absolute http(s) URL. Its errors name
// the URL without credentials.
func (c *Client) parseBaseURL(raw string) (*url.URL, error) {
	bad := func(why string) error {
		return errors.New(c.scrub(fmt.Sprintf("invalid base URL %q: %s", RedactURL(raw), why)))
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error quotes the whole URL, credentials included
		}
		return nil, bad(err.Error())
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, bad("the scheme must be http or https")
	}
	if u.Host == "" {
		return nil, bad("no host")
	}
	return u, nil
}

// noRedirects makes the http.Client return a 3xx response as it is, so
// that it counts as a failure (HTTP4xx) and the API key and credential
// headers never go to wherever the Location points.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// newTransport builds the connection pool: HTTP/1.1 only (one stream per
// connection, like the servers measured), no compression (gzip would hide
// when bytes arrive), idle connections for every worker, and no cap on open
// connections, so that the sweep's concurrency is the only limit.
func newTransport(cfg Config) *http.Transport {
	ct := cfg.ConnectTimeout
	if ct <= 0 {
		ct = defaultConnectTimeout
	}
	idle := max(cfg.MaxConns, 2) + 8
	dialer := &net.Dialer{Timeout: ct, KeepAlive: 30 * time.Second}
	return &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         dialer.DialContext,
		TLSHandshakeTimeout: ct,
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: cfg.Insecure}, //nolint:gosec // explicit opt-in
		MaxIdleConns:        idle,
		MaxIdleConnsPerHost: idle,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
		TLSNextProto:        map[string]func(string, *tls.Conn) http.RoundTripper{},
		// Each connection holds one bufio.Reader and one bufio.Writer of
		// these sizes (net/http's default is 4 KiB each). A request is
		// written once, and a write larger than the buffer goes straight to
		// the socket; the SSE reader's own 2 KiB buffer (sse.go) reads the
		// body through the connection's reader, which a read that large
		// bypasses. So small buffers cost nothing per token and save
		// ~6 KiB per stream (bench/results.md, "10 000 streams").
		ReadBufferSize:  connReadBuf,
		WriteBufferSize: connWriteBuf,
		// Response headers beyond 1 MiB end the request (net/http's default
		// bound is 10 MB): a hostile server cannot make every stream hold
		// megabytes of headers.
		MaxResponseHeaderBytes: maxResponseHeader,
	}
}

// The connection's buffer sizes and header bound (newTransport).
const (
	connReadBuf       = 1 << 10
	connWriteBuf      = 512
	maxResponseHeader = 1 << 20
)

// variant is a Config.Variant ready to send: its body and its headers.
type variant struct {
	body    bodyTemplate
	headers http.Header
}

// variants checks and encodes c's Config.Variants.
func (c *Client) variants() ([]variant, error) {
	var out []variant
	for i, v := range c.cfg.Variants {
		if err := checkHeaders(v.Headers); err != nil {
			return nil, fmt.Errorf("variant %d: %w", i+1, err)
		}
		cfg := c.cfg
		if v.Model != "" {
			cfg.Model = v.Model
		}
		body, err := newBodyTemplate(cfg)
		if err != nil {
			return nil, err
		}
		out = append(out, variant{body: body, headers: v.Headers.Clone()})
	}
	return out, nil
}

// variant is the variant p selects; nil for the Config's own settings (a
// Variant out of range included).
func (c *Client) variant(p Prompt) *variant {
	if p.Variant <= 0 || p.Variant > len(c.vars) {
		return nil
	}
	return &c.vars[p.Variant-1]
}
