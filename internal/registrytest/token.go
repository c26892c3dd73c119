package registrytest

import (
	"cmp"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/subtle"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/distribution/distribution/v3/configuration"
	"github.com/distribution/distribution/v3/registry/auth/token"
	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

const (
	tokenService = "registrytest"
	tokenIssuer  = "registrytest-token-service"
	tokenTTL     = 5 * time.Minute
)

// tokenServer is a minimal token service of the registry token
// authentication protocol, like docker_auth: it checks Basic credentials
// and issues JWTs, signed with a key the registry trusts, that grant the
// access asked for.
type tokenServer struct {
	srv        *httptest.Server
	user, pass string
	// pullOnly grants no action but pull, whatever is asked.
	pullOnly bool
	key      *ecdsa.PrivateKey
	kid      string // the key's ID, which the registry looks it up by
	certPath string // the key's certificate, which the registry trusts
	path     string // where the token endpoint answers

	mu     sync.Mutex
	issued []string
}

// startTokenServer creates a signing key, writes its self-signed
// certificate under dir and serves the token endpoint on loopback, at
// path ("/token" when empty). With echo, its errors echo the credentials asked with (WithCredentialEcho).
func startTokenServer(dir, path, user, pass string, echo bool) (*tokenServer, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating the token signing key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: tokenIssuer},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		IsCA:         true,
		// The registry verifies chains with these set.
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("creating the token certificate: %w", err)
	}
	certPath := filepath.Join(dir, "token.crt")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	if err := os.WriteFile(certPath, pemBytes, 0o600); err != nil {
		return nil, fmt.Errorf("writing the token certificate: %w", err)
	}

	ts := &tokenServer{
		user:     user,
		pass:     pass,
		key:      key,
		kid:      token.GetJWKThumbprint(&key.PublicKey),
		certPath: certPath,
		path:     cmp.Or(path, "/token"),
	}
	mux := http.NewServeMux()
	mux.HandleFunc(ts.path, ts.serveToken)
	var h http.Handler = mux
	if echo {
		h = echoCredentials(mux)
	}
	ts.srv, err = startLoopback(h, false)
	if err != nil {
		return nil, err
	}
	return ts, nil
}

// params returns the registry's "auth: token:" configuration.
func (ts *tokenServer) params() configuration.Parameters {
	return configuration.Parameters{
		"realm":          ts.srv.URL + ts.path,
		"service":        tokenService,
		"issuer":         tokenIssuer,
		"rootcertbundle": ts.certPath,
	}
}

// serveToken answers GET /token?service=S&scope=T:NAME:ACTIONS... with
// Basic credentials, and the OAuth2 password grant (POST with a form).
func (ts *tokenServer) serveToken(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var user, pass string
	var ok bool
	switch r.Method {
	case http.MethodGet:
		user, pass, ok = r.BasicAuth()
	case http.MethodPost:
		if r.PostForm.Get("grant_type") != "password" {
			http.Error(w, "only the password grant is supported", http.StatusBadRequest)
			return
		}
		user, pass, ok = r.PostForm.Get("username"), r.PostForm.Get("password"), true
	default:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if !ok || !ts.valid(user, pass) {
		w.Header().Set("WWW-Authenticate", `Basic realm="registrytest"`)
		http.Error(w, "bad credentials", http.StatusUnauthorized)
		return
	}
	if svc := r.Form.Get("service"); svc != "" && svc != tokenService {
		http.Error(w, "unknown service "+svc, http.StatusBadRequest)
		return
	}

	var access []*token.ResourceActions
	for _, scope := range r.Form["scope"] {
		for s := range strings.FieldsSeq(scope) {
			if ra := parseScope(s); ra != nil {
				if ts.pullOnly {
					ra.Actions = slices.DeleteFunc(ra.Actions, func(a string) bool { return a != "pull" })
				}
				access = append(access, ra)
			}
		}
	}
	signed, err := ts.sign(user, access)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	ts.mu.Lock()
	ts.issued = append(ts.issued, signed)
	ts.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"token":        signed,
		"access_token": signed,
		"expires_in":   int(tokenTTL / time.Second),
		"issued_at":    time.Now().UTC().Format(time.RFC3339),
	})
}

func (ts *tokenServer) valid(user, pass string) bool {
	u := subtle.ConstantTimeCompare([]byte(user), []byte(ts.user))
	p := subtle.ConstantTimeCompare([]byte(pass), []byte(ts.pass))
	return u&p == 1
}

// parseScope parses "repository:skills/demo:pull,push"; the name may hold
// colons (a registry host with a port), so the type ends at the first colon
// and the actions start after the last.
func parseScope(s string) *token.ResourceActions {
	typ, rest, ok := strings.Cut(s, ":")
	i := strings.LastIndex(rest, ":")
	if !ok || i < 0 {
		return nil
	}
	return &token.ResourceActions{
		Type:    typ,
		Name:    rest[:i],
		Actions: strings.Split(rest[i+1:], ","),
	}
}

// sign issues a JWT for user granting access.
func (ts *tokenServer) sign(user string, access []*token.ResourceActions) (string, error) {
	signer, err := jose.NewSigner(
		jose.SigningKey{Algorithm: jose.ES256, Key: ts.key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader(jose.HeaderKey("kid"), ts.kid),
	)
	if err != nil {
		return "", fmt.Errorf("creating the token signer: %w", err)
	}
	now := time.Now()
	jti := make([]byte, 16)
	_, _ = rand.Read(jti)
	claims := token.ClaimSet{
		Issuer:     tokenIssuer,
		Subject:    user,
		Audience:   token.AudienceList{tokenService},
		Expiration: now.Add(tokenTTL).Unix(),
		NotBefore:  now.Unix(),
		IssuedAt:   now.Unix(),
		JWTID:      fmt.Sprintf("%x", jti),
		Access:     access,
	}
	signed, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		return "", fmt.Errorf("signing the token: %w", err)
	}
	return signed, nil
}
