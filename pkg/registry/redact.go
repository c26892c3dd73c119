package registry

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"oras.land/oras-go/v2/registry/remote/auth"
)

// Registries and the proxies in front of them sometimes echo a request's
// Authorization header, or a token endpoint its form, into their error
// bodies, and every error stax shows quotes those bodies. So a Client
// remembers each secret it sends, and replaces them by *** in every error
// body before oras-go or stax reads it: that is where all registry and
// token-endpoint messages come from.
//
// Headers are never changed. The client acts on them (a redirect's
// Location, a challenge's realm and scope, a Content-Length), and a secret
// can be an ordinary word that a registry also uses in its URLs. No message
// quotes a header; oras-go's quote the URL of a failed request, which a
// Location or a realm may have named, as the registry chose it. Nor does a
// message quote a response's reason phrase, the server's own text, which no
// layer redacts: statusText says the status instead.

// redacted replaces a secret.
const redacted = "***"

const (
	// maxSecrets bounds the secrets a Client remembers: a long-lived
	// client fetches new bearer tokens as the old ones expire. A secret
	// dropped is remembered again when it is sent again, before its
	// answer is read.
	maxSecrets = 64
	// maxErrorBody bounds the error body kept of a response. oras-go reads
	// 8 KiB of one; a JSON body cut short is ignored as a whole.
	maxErrorBody = 64 << 10
	// maxFormBody bounds the request form read for its secrets.
	maxFormBody = 64 << 10
)

// authorizationEcho matches an Authorization header written out as text
// ("Authorization: Basic …", `"authorization":"Bearer …"`), whatever
// credentials it carries (token68 characters, or URL-encoded); its first
// group is what stays.
var authorizationEcho = regexp.MustCompile(`(?i)(authorization["']?\s*[:=]\s*["']?\s*(?:basic|bearer)\s+)[A-Za-z0-9._~+/=%*-]+`)

// secrets are the credentials a Client has sent, newest last. They are
// safe for concurrent use.
type secrets struct {
	mu     sync.Mutex
	values []string
}

// add remembers values, ignoring empty ones.
func (s *secrets) add(values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range values {
		if v == "" {
			continue
		}
		if i := slices.Index(s.values, v); i >= 0 {
			s.values = slices.Delete(s.values, i, i+1)
		}
		s.values = append(s.values, v)
	}
	if extra := len(s.values) - maxSecrets; extra > 0 {
		s.values = slices.Delete(s.values, 0, extra)
	}
}

// addCredential remembers the secrets of cred, and the Basic header they
// make.
func (s *secrets) addCredential(cred auth.Credential) {
	var basic string
	if cred.Password != "" {
		basic = base64.StdEncoding.EncodeToString([]byte(cred.Username + ":" + cred.Password))
	}
	s.add(cred.Password, cred.RefreshToken, cred.AccessToken, basic)
}

// addRequest remembers the secrets req carries: its Authorization header,
// decoded when Basic, and the password and tokens of a token request's
// form.
func (s *secrets) addRequest(req *http.Request) {
	if scheme, value, ok := strings.Cut(req.Header.Get("Authorization"), " "); ok {
		value = strings.TrimSpace(value)
		s.add(value)
		if strings.EqualFold(scheme, "basic") {
			if decoded, err := base64.StdEncoding.DecodeString(value); err == nil {
				if _, password, ok := strings.Cut(string(decoded), ":"); ok {
					s.add(password)
				}
			}
		}
	}
	if req.GetBody == nil {
		return
	}
	if mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type")); mt != "application/x-www-form-urlencoded" {
		return
	}
	body, err := req.GetBody()
	if err != nil {
		return
	}
	defer body.Close()
	data, err := io.ReadAll(io.LimitReader(body, maxFormBody))
	if err != nil {
		return
	}
	form, err := url.ParseQuery(string(data))
	if err != nil {
		return
	}
	for _, key := range []string{"password", "refresh_token", "access_token", "client_secret"} {
		s.add(form[key]...)
	}
}

// replacer replaces every secret, as sent and in the URL and JSON
// encodings an echo may use, longest first so that no secret is left in
// part.
func (s *secrets) replacer() *strings.Replacer {
	s.mu.Lock()
	values := slices.Clone(s.values)
	s.mu.Unlock()
	var forms []string
	for _, v := range values {
		quoted, _ := json.Marshal(v)
		forms = append(forms, v, url.QueryEscape(v), url.PathEscape(v), string(quoted[1:len(quoted)-1]))
	}
	slices.SortFunc(forms, func(a, b string) int { return len(b) - len(a) })
	forms = slices.Compact(forms)
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, redacted)
	}
	return strings.NewReplacer(pairs...)
}

// redact returns text without the secrets and without any Authorization
// header written out in it.
func redact(r *strings.Replacer, text string) string {
	return authorizationEcho.ReplaceAllString(r.Replace(text), "${1}"+redacted)
}

// redactJSON returns body without the secrets. A JSON body is decoded and
// its strings redacted one by one, so that no escaping of the JSON text
// hides a secret from the message built from it.
func redactJSON(r *strings.Replacer, body []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return []byte(redact(r, string(body)))
	}
	out, err := json.Marshal(redactValue(r, v))
	if err != nil {
		return []byte(redact(r, string(body)))
	}
	return out
}

func redactValue(r *strings.Replacer, v any) any {
	switch v := v.(type) {
	case string:
		return redact(r, v)
	case []any:
		for i := range v {
			v[i] = redactValue(r, v[i])
		}
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			if s, ok := e.(string); ok && strings.EqualFold(k, "authorization") {
				// An echoed header, alone in its field.
				if scheme, _, ok := strings.Cut(s, " "); ok {
					e = scheme + " " + redacted
				}
			}
			out[redact(r, k)] = redactValue(r, e)
		}
		return out
	}
	return v
}

// redactingResponses remembers the secrets of each request, and removes
// every secret remembered from the body of each error response before
// anything reads it.
type redactingResponses struct {
	next    http.RoundTripper
	secrets *secrets
}

func (t redactingResponses) RoundTrip(req *http.Request) (*http.Response, error) {
	t.secrets.addRequest(req)
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	if resp.StatusCode < http.StatusBadRequest {
		return resp, nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	_ = resp.Body.Close()
	body = redactJSON(t.secrets.replacer(), body)
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Del("Content-Length")
	return resp, nil
}

// statusText says a response's status in messages, as "503 Service
// Unavailable": in the standard words, never in the server's reason
// phrase, which can hold anything, a secret included.
func statusText(code int) string {
	return fmt.Sprintf("%d %s", code, http.StatusText(code))
}

// recordingCredentials remembers in s the secrets of every credential
// fn hands out.
func recordingCredentials(s *secrets, fn auth.CredentialFunc) auth.CredentialFunc {
	return func(ctx context.Context, hostport string) (auth.Credential, error) {
		cred, err := fn(ctx, hostport)
		if err == nil {
			s.addCredential(cred)
		}
		return cred, err
	}
}
