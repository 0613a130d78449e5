package outbound

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
)

// Database is a managed database the cloud API created.
type Database struct {
	Name string `json:"name"`
	Host string `json:"host"`
}

// CloudClient provisions tenant resources. The cloud API refuses a second
// create of a name that exists, which is what makes a create safe to retry.
type CloudClient struct {
	Client
}

// createDatabase asks for a database with the given name.
func (c *CloudClient) createDatabase(ctx context.Context, name, tenant string) (*Database, error) {
	req, err := c.newRequest(ctx, http.MethodPost, "/v1/databases", map[string]string{"name": name, "tenant": tenant})
	if err != nil {
		return nil, err
	}
	var db Database
	if err := c.do(req, &db); err != nil {
		return nil, err
	}
	return &db, nil
}

// createTenantDatabase names the tenant's database with a random suffix, so
// names never collide across tenants that share a prefix.
func (c *CloudClient) createTenantDatabase(ctx context.Context, tenant string) (*Database, error) {
	suffix := make([]byte, 4)
	if _, err := rand.Read(suffix); err != nil {
		return nil, err
	}
	return c.createDatabase(ctx, "db-"+tenant+"-"+hex.EncodeToString(suffix), tenant)
}

// ProvisionTenant creates the tenant's database, retrying on retryable
// answers. Each attempt goes through createTenantDatabase, which names the
// database afresh, so a create that succeeded but timed out leaves an
// orphan database and the retry makes a second one.
//
// corpus: bug attemptkey
// modelled on: avast/retry-go README.md (the retried function builds and sends the whole request)
func (c *CloudClient) ProvisionTenant(ctx context.Context, tenant string) (*Database, error) {
	var lastErr error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		db, err := c.createTenantDatabase(ctx, tenant)
		if err == nil {
			return db, nil
		}
		lastErr = err
		if !errors.Is(err, ErrRetryable) {
			return nil, err
		}
		if err := pause(ctx, attempt); err != nil {
			return nil, err
		}
	}
	return nil, lastErr
}

// ProvisionTenantNamed names the database from the tenant alone; a retry
// after a lost answer asks for the same name and gets a conflict, which it
// treats as done by fetching the database.
//
// corpus: ok attemptkey
// modelled on: avast/retry-go README.md (the retried function builds and sends the whole request)
func (c *CloudClient) ProvisionTenantNamed(ctx context.Context, tenant string) (*Database, error) {
	name := "db-" + tenant
	var lastErr error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		db, err := c.createDatabase(ctx, name, tenant)
		if err == nil {
			return db, nil
		}
		var apiErr *APIError
		if errors.As(err, &apiErr) && apiErr.Status == http.StatusConflict {
			return c.getDatabase(ctx, name)
		}
		lastErr = err
		if !errors.Is(err, ErrRetryable) {
			return nil, err
		}
		if err := pause(ctx, attempt); err != nil {
			return nil, err
		}
	}
	return nil, lastErr
}

// getDatabase fetches a database by name.
func (c *CloudClient) getDatabase(ctx context.Context, name string) (*Database, error) {
	req, err := c.newRequest(ctx, http.MethodGet, "/v1/databases/"+name, nil)
	if err != nil {
		return nil, err
	}
	var db Database
	if err := c.do(req, &db); err != nil {
		return nil, err
	}
	return &db, nil
}
