package cmd

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/scenario"
)

// selfSignedCA makes a CA and a server certificate for 127.0.0.1 signed by
// it; it returns the server's tls.Config and the CA's PEM.
func selfSignedCA(t *testing.T) (*tls.Config, []byte) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ca := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "dorisdiag test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{leafDER}, PrivateKey: key}}},
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
}

// --tls-ca verifies the FE's certificate against the given CA over the real
// MySQL protocol; a certificate from another CA is refused (exit 2, host
// named), never silently accepted.
func TestLiveTLS(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the emulator")
	}
	serverTLS, caPEM := selfSignedCA(t)
	snap, err := scenario.Load("healthy")
	if err != nil {
		t.Fatal(err)
	}
	live := liveArgs(t, snap, emulator.Options{TLSConfig: serverTLS})
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	os.WriteFile(ca, caPEM, 0o600)
	out, stderr, code := run(t, nil, "", append([]string{"check", "--no-metrics", "--tls-ca", ca}, live...)...)
	if code != cmdutil.ExitOK || !strings.Contains(out, "MVs      11") {
		t.Fatalf("check over TLS with the right CA: exit %d, stderr %q\n%s", code, stderr, out)
	}
	_, otherCA := selfSignedCA(t)
	wrong := filepath.Join(dir, "other.pem")
	os.WriteFile(wrong, otherCA, 0o600)
	_, stderr, code = run(t, nil, "", append([]string{"check", "--no-metrics", "--timeout", "5s", "--tls-ca", wrong}, live...)...)
	if code != cmdutil.ExitError || !strings.Contains(stderr, "127.0.0.1") || !strings.Contains(strings.ToLower(stderr), "certificate") {
		t.Fatalf("a certificate from another CA: exit %d, stderr %q; want 2, the host and a certificate error", code, stderr)
	}
	// Without TLS the emulator (which requires it) refuses the session.
	_, stderr, code = run(t, nil, "", append([]string{"check", "--no-metrics", "--timeout", "5s"}, live...)...)
	if code != cmdutil.ExitError {
		t.Fatalf("plain connection to a TLS-only FE: exit %d, stderr %q", code, stderr)
	}
}
