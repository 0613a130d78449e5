package api

import (
	"database/sql"
	"errors"
	"net/http"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"example.com/corpus/db"
	"example.com/corpus/store"
)

// psql builds PostgreSQL statements with $n placeholders.
var psql = sq.StatementBuilder.PlaceholderFormat(sq.Dollar)

// redeemRequest is the body of the coupon endpoints.
type redeemRequest struct {
	Code    string `json:"code"`
	OrderID string `json:"order_id"`
}

// couponValue is what a coupon code takes off, in cents.
func couponValue(code string) int64 {
	if len(code) > 0 && code[0] == 'X' {
		return 2000
	}
	return 500
}

// RedeemCoupon redeems a coupon code for the user through GORM.
//
// corpus: bug checkthenact
// modelled on: tosone/GithubTraveler models/RepoSubscribersCount.go (First, then Create on gorm.ErrRecordNotFound)
func (s *Server) RedeemCoupon(w http.ResponseWriter, r *http.Request) {
	var req redeemRequest
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx, uid := r.Context(), userID(r)
	var prior store.Redemption
	err := s.gdb.WithContext(ctx).Where("coupon_code = ? AND user_id = ?", req.Code, uid).First(&prior).Error
	if err == nil {
		writeError(w, http.StatusConflict, "coupon already redeemed")
		return
	}
	if !errors.Is(err, gorm.ErrRecordNotFound) {
		writeError(w, http.StatusInternalServerError, "lookup failed")
		return
	}
	red := store.Redemption{ID: uuid.NewString(), CouponCode: req.Code, UserID: uid, AmountOff: couponValue(req.Code), RedeemedAt: time.Now()}
	if err := s.gdb.WithContext(ctx).Create(&red).Error; err != nil {
		writeError(w, http.StatusInternalServerError, "redeem failed")
		return
	}
	writeJSON(w, http.StatusCreated, red)
}

// RedeemLimitedCoupon redeems a coupon that allows one use per user,
// counting the user's redemptions first.
//
// corpus: bug checkthenact
// modelled on: momlesstomato/pixel-server pkg/room/infrastructure/store/rights_store.go (HasRights: Model(...).Where(...).Count)
func (s *Server) RedeemLimitedCoupon(w http.ResponseWriter, r *http.Request) {
	var req redeemRequest
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx, uid := r.Context(), userID(r)
	var n int64
	if err := s.gdb.WithContext(ctx).Model(&store.Redemption{}).
		Where("coupon_code = ? AND user_id = ?", req.Code, uid).Count(&n).Error; err != nil {
		writeError(w, http.StatusInternalServerError, "lookup failed")
		return
	}
	if n > 0 {
		writeError(w, http.StatusConflict, "coupon already redeemed")
		return
	}
	red := store.Redemption{ID: uuid.NewString(), CouponCode: req.Code, UserID: uid, AmountOff: couponValue(req.Code), RedeemedAt: time.Now()}
	if err := s.gdb.WithContext(ctx).Create(&red).Error; err != nil {
		writeError(w, http.StatusInternalServerError, "redeem failed")
		return
	}
	writeJSON(w, http.StatusCreated, red)
}

// RedeemCouponOnce redeems a coupon code for the user; the insert does
// nothing when the unique index on (coupon_code, user_id) has the pair.
//
// corpus: ok checkthenact
// modelled on: momlesstomato/pixel-server pkg/room/infrastructure/store/rights_store.go (GrantRights: Clauses(clause.OnConflict{DoNothing: true}).Create)
func (s *Server) RedeemCouponOnce(w http.ResponseWriter, r *http.Request) {
	var req redeemRequest
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	uid := userID(r)
	red := store.Redemption{ID: uuid.NewString(), CouponCode: req.Code, UserID: uid, AmountOff: couponValue(req.Code), RedeemedAt: time.Now()}
	res := s.gdb.WithContext(r.Context()).
		Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "coupon_code"}, {Name: "user_id"}}, DoNothing: true}).
		Create(&red)
	if res.Error != nil {
		writeError(w, http.StatusInternalServerError, "redeem failed")
		return
	}
	if res.RowsAffected == 0 {
		writeError(w, http.StatusConflict, "coupon already redeemed")
		return
	}
	writeJSON(w, http.StatusCreated, red)
}

// welcomeOffer is the one welcome offer each new user may claim.
type welcomeOffer struct {
	ID        int64
	UserID    string
	OfferCode string
	ClaimedAt time.Time
}

// ClaimWelcomeOffer gives the user their welcome offer. FirstOrCreate is a
// SELECT and then an INSERT; welcome_offers has no unique index on
// user_id.
//
// corpus: bug checkthenact
// modelled on: GStones/moke-kit demo/internal/demo/db_sql/data.go (db.FirstOrCreate of a record by its fields)
func (s *Server) ClaimWelcomeOffer(w http.ResponseWriter, r *http.Request) {
	uid := userID(r)
	offer := welcomeOffer{UserID: uid}
	res := s.gdb.WithContext(r.Context()).
		Where(welcomeOffer{UserID: uid}).
		Attrs(welcomeOffer{OfferCode: "WELCOME10", ClaimedAt: time.Now()}).
		FirstOrCreate(&offer)
	if res.Error != nil {
		writeError(w, http.StatusInternalServerError, "claim failed")
		return
	}
	writeJSON(w, http.StatusOK, offer)
}

// couponUse is one use of a coupon on an order.
type couponUse struct {
	ID       int64
	CouponID int64
	UserID   string
	OrderID  string
	UsedAt   time.Time
}

// ApplyCouponToOrder applies a coupon to the user's order in a GORM
// transaction; the transaction does not stop two of them reading "none".
//
// corpus: bug checkthenact
// modelled on: timdin/vfs model/user.go (BeforeCreate: tx.Where(...).First to refuse a duplicate)
func (s *Server) ApplyCouponToOrder(w http.ResponseWriter, r *http.Request) {
	var req struct {
		CouponID int64  `json:"coupon_id"`
		OrderID  string `json:"order_id"`
	}
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	uid := userID(r)
	err := s.gdb.WithContext(r.Context()).Transaction(func(tx *gorm.DB) error {
		var prior couponUse
		err := tx.Where("coupon_id = ? AND user_id = ?", req.CouponID, uid).Take(&prior).Error
		if err == nil {
			return nil
		}
		if !errors.Is(err, gorm.ErrRecordNotFound) {
			return err
		}
		return tx.Create(&couponUse{CouponID: req.CouponID, UserID: uid, OrderID: req.OrderID, UsedAt: time.Now()}).Error
	})
	if err != nil {
		writeError(w, http.StatusInternalServerError, "apply failed")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// ApplyCouponToOrderUnique applies a coupon to the user's order; the
// unique index on (coupon_id, user_id) refuses a second use, and its
// violation is the "already applied" answer.
//
// corpus: ok checkthenact
// modelled on: hizu77/avito-autumn-2025 internal/storage/common/constraint/unique.go (errors.As to *pgconn.PgError, code 23505)
func (s *Server) ApplyCouponToOrderUnique(w http.ResponseWriter, r *http.Request) {
	var req struct {
		CouponID int64  `json:"coupon_id"`
		OrderID  string `json:"order_id"`
	}
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	uid := userID(r)
	var n int64
	if err := s.gdb.WithContext(r.Context()).Model(&couponUse{}).
		Where("coupon_id = ? AND user_id = ?", req.CouponID, uid).Count(&n).Error; err != nil {
		writeError(w, http.StatusInternalServerError, "lookup failed")
		return
	}
	if n > 0 {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	err := s.gdb.WithContext(r.Context()).
		Create(&couponUse{CouponID: req.CouponID, UserID: uid, OrderID: req.OrderID, UsedAt: time.Now()}).Error
	var pgErr *pgconn.PgError
	if err != nil && !(errors.As(err, &pgErr) && pgErr.Code == "23505") {
		writeError(w, http.StatusInternalServerError, "apply failed")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// UseStoreCoupon records a coupon used at the till, built with squirrel.
//
// corpus: bug checkthenact
// modelled on: Masterminds/squirrel README.md (Select/Insert builders run with RunWith)
func (s *Server) UseStoreCoupon(w http.ResponseWriter, r *http.Request) {
	var req struct {
		CouponID int64  `json:"coupon_id"`
		OrderID  string `json:"order_id"`
	}
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx, uid := r.Context(), userID(r)
	query, args, err := psql.Select("id").From("coupon_uses").
		Where(sq.Eq{"coupon_id": req.CouponID, "user_id": uid}).Limit(1).ToSql()
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	var id int64
	err = s.sqlDB.QueryRowContext(ctx, query, args...).Scan(&id)
	if err == nil {
		writeError(w, http.StatusConflict, "coupon already used")
		return
	}
	if !errors.Is(err, sql.ErrNoRows) {
		writeError(w, http.StatusInternalServerError, "lookup failed")
		return
	}
	_, err = psql.Insert("coupon_uses").
		Columns("coupon_id", "user_id", "order_id").
		Values(req.CouponID, uid, req.OrderID).
		RunWith(s.sqlDB).ExecContext(ctx)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "use failed")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// UseStoreCouponOnce records a coupon used at the till; the insert skips
// a pair the unique index holds and RETURNING tells which happened.
//
// corpus: ok checkthenact
// modelled on: Masterminds/squirrel README.md (Insert builder with a Suffix)
func (s *Server) UseStoreCouponOnce(w http.ResponseWriter, r *http.Request) {
	var req struct {
		CouponID int64  `json:"coupon_id"`
		OrderID  string `json:"order_id"`
	}
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	var id int64
	err := psql.Insert("coupon_uses").
		Columns("coupon_id", "user_id", "order_id").
		Values(req.CouponID, userID(r), req.OrderID).
		Suffix("ON CONFLICT (coupon_id, user_id) DO NOTHING RETURNING id").
		RunWith(s.sqlDB).QueryRowContext(r.Context()).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		writeError(w, http.StatusConflict, "coupon already used")
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, "use failed")
		return
	}
	writeJSON(w, http.StatusCreated, map[string]int64{"use_id": id})
}

// redemptionRow is a redemption as sqlx binds it.
type redemptionRow struct {
	ID         string `db:"id"`
	CouponCode string `db:"coupon_code"`
	UserID     string `db:"user_id"`
	AmountOff  int64  `db:"amount_off"`
}

// RedeemPartnerCode redeems a partner's code through sqlx.
//
// corpus: bug checkthenact
// modelled on: Nivl/go-rest-tools storage/db/sqlx/queryable.go (Get, Select and NamedExec over one sqlx handle)
func (s *Server) RedeemPartnerCode(w http.ResponseWriter, r *http.Request) {
	var req redeemRequest
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx, uid := r.Context(), userID(r)
	var n int
	if err := s.xdb.GetContext(ctx, &n,
		`SELECT count(*) FROM redemptions WHERE coupon_code = $1 AND user_id = $2`, req.Code, uid); err != nil {
		writeError(w, http.StatusInternalServerError, "lookup failed")
		return
	}
	if n > 0 {
		writeError(w, http.StatusConflict, "code already redeemed")
		return
	}
	row := redemptionRow{ID: uuid.NewString(), CouponCode: req.Code, UserID: uid, AmountOff: couponValue(req.Code)}
	if _, err := s.xdb.NamedExecContext(ctx,
		`INSERT INTO redemptions (id, coupon_code, user_id, amount_off)
		 VALUES (:id, :coupon_code, :user_id, :amount_off)`, row); err != nil {
		writeError(w, http.StatusInternalServerError, "redeem failed")
		return
	}
	writeJSON(w, http.StatusCreated, row)
}

// RedeemPartnerCodeLocked redeems a partner's code through sqlx, under
// an advisory lock on the (code, user) pair held by the transaction.
//
// corpus: ok checkthenact
// modelled on: Nivl/go-rest-tools storage/db/sqlx/tx.go (sqlx transactions wrapping the same queries)
func (s *Server) RedeemPartnerCodeLocked(w http.ResponseWriter, r *http.Request) {
	var req redeemRequest
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx, uid := r.Context(), userID(r)
	tx, err := s.xdb.BeginTxx(ctx, nil)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "begin failed")
		return
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, "redeem:"+req.Code+":"+uid); err != nil {
		writeError(w, http.StatusInternalServerError, "lock failed")
		return
	}
	var n int
	if err := tx.GetContext(ctx, &n,
		`SELECT count(*) FROM redemptions WHERE coupon_code = $1 AND user_id = $2`, req.Code, uid); err != nil {
		writeError(w, http.StatusInternalServerError, "lookup failed")
		return
	}
	if n > 0 {
		writeError(w, http.StatusConflict, "code already redeemed")
		return
	}
	row := redemptionRow{ID: uuid.NewString(), CouponCode: req.Code, UserID: uid, AmountOff: couponValue(req.Code)}
	if _, err := tx.NamedExecContext(ctx,
		`INSERT INTO redemptions (id, coupon_code, user_id, amount_off)
		 VALUES (:id, :coupon_code, :user_id, :amount_off)`, row); err != nil {
		writeError(w, http.StatusInternalServerError, "redeem failed")
		return
	}
	if err := tx.Commit(); err != nil {
		writeError(w, http.StatusInternalServerError, "commit failed")
		return
	}
	writeJSON(w, http.StatusCreated, row)
}

// RedeemGiftCard turns a gift card into wallet credit: it reads the
// card's status, marks it redeemed and books the credit.
//
// corpus: bug checkthenact
// modelled on: Fayob/merrypay service/coupon.go (RegisterWithCoupon: UPDATE coupon SET used_by = $1 WHERE digit = $2)
func (s *Server) RedeemGiftCard(w http.ResponseWriter, r *http.Request) {
	ctx, uid := r.Context(), userID(r)
	code := r.PathValue("code")
	tx, err := s.xdb.BeginTxx(ctx, nil)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "begin failed")
		return
	}
	defer tx.Rollback()
	var card struct {
		Status      string `db:"status"`
		AmountCents int64  `db:"amount_cents"`
	}
	if err := tx.GetContext(ctx, &card, `SELECT status, amount_cents FROM gift_cards WHERE code = $1`, code); err != nil {
		writeError(w, http.StatusNotFound, "no such card")
		return
	}
	if card.Status != "issued" {
		writeError(w, http.StatusConflict, "card already redeemed")
		return
	}
	if _, err := tx.ExecContext(ctx,
		`UPDATE gift_cards SET status = 'redeemed', redeemed_by = $2 WHERE code = $1`, code, uid); err != nil {
		writeError(w, http.StatusInternalServerError, "redeem failed")
		return
	}
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO wallet_credits (user_id, amount_cents, source) VALUES ($1, $2, $3)`,
		uid, card.AmountCents, "gift_card:"+code); err != nil {
		writeError(w, http.StatusInternalServerError, "credit failed")
		return
	}
	if err := tx.Commit(); err != nil {
		writeError(w, http.StatusInternalServerError, "commit failed")
		return
	}
	writeJSON(w, http.StatusOK, map[string]int64{"credited": card.AmountCents})
}

// RedeemGiftCardOnce turns a gift card into wallet credit; the update
// only moves a card that is still issued, and only the request whose
// update moved it books the credit.
//
// corpus: ok checkthenact
// modelled on: Fayob/merrypay service/coupon.go (RegisterWithCoupon: UPDATE coupon SET used_by = $1 WHERE digit = $2)
func (s *Server) RedeemGiftCardOnce(w http.ResponseWriter, r *http.Request) {
	ctx, uid := r.Context(), userID(r)
	code := r.PathValue("code")
	tx, err := s.xdb.BeginTxx(ctx, nil)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "begin failed")
		return
	}
	defer tx.Rollback()
	var card struct {
		Status      string `db:"status"`
		AmountCents int64  `db:"amount_cents"`
	}
	if err := tx.GetContext(ctx, &card, `SELECT status, amount_cents FROM gift_cards WHERE code = $1`, code); err != nil {
		writeError(w, http.StatusNotFound, "no such card")
		return
	}
	if card.Status != "issued" {
		writeError(w, http.StatusConflict, "card already redeemed")
		return
	}
	res, err := tx.ExecContext(ctx,
		`UPDATE gift_cards SET status = 'redeemed', redeemed_by = $2 WHERE code = $1 AND status = 'issued'`, code, uid)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "redeem failed")
		return
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		writeError(w, http.StatusConflict, "card already redeemed")
		return
	}
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO wallet_credits (user_id, amount_cents, source) VALUES ($1, $2, $3)`,
		uid, card.AmountCents, "gift_card:"+code); err != nil {
		writeError(w, http.StatusInternalServerError, "credit failed")
		return
	}
	if err := tx.Commit(); err != nil {
		writeError(w, http.StatusInternalServerError, "commit failed")
		return
	}
	writeJSON(w, http.StatusOK, map[string]int64{"credited": card.AmountCents})
}

// ListRedemptions lists the user's redemptions and clears the "new
// coupons" badge.
//
// corpus: ok checkthenact
// modelled on: Nivl/go-rest-tools storage/db/sqlx/queryable.go (Get, Select and NamedExec over one sqlx handle)
func (s *Server) ListRedemptions(w http.ResponseWriter, r *http.Request) {
	ctx, uid := r.Context(), userID(r)
	var rows []redemptionRow
	if err := s.xdb.SelectContext(ctx, &rows,
		`SELECT id, coupon_code, user_id, amount_off FROM redemptions WHERE user_id = $1 ORDER BY id`, uid); err != nil {
		writeError(w, http.StatusInternalServerError, "list failed")
		return
	}
	if _, err := s.xdb.ExecContext(ctx, `UPDATE users SET coupon_badge = false WHERE id = $1`, uid); err != nil {
		writeError(w, http.StatusInternalServerError, "update failed")
		return
	}
	writeJSON(w, http.StatusOK, rows)
}

// RedeemVoucher redeems a voucher through the redemption repository.
//
// corpus: bug checkthenact
// modelled on: go-zoox/gormx find_one_or_create.go (FindOneOrCreate: FindOne, then Create when it fails)
func (s *Server) RedeemVoucher(w http.ResponseWriter, r *http.Request) {
	var req redeemRequest
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx, uid := r.Context(), userID(r)
	_, err := s.redemptions.FindRedemption(ctx, req.Code, uid)
	if err == nil {
		writeError(w, http.StatusConflict, "voucher already redeemed")
		return
	}
	if !errors.Is(err, store.ErrNotFound) {
		writeError(w, http.StatusInternalServerError, "lookup failed")
		return
	}
	red := &store.Redemption{ID: uuid.NewString(), CouponCode: req.Code, UserID: uid, AmountOff: couponValue(req.Code), RedeemedAt: time.Now()}
	if err := s.redemptions.CreateRedemption(ctx, red); err != nil {
		writeError(w, http.StatusInternalServerError, "redeem failed")
		return
	}
	writeJSON(w, http.StatusCreated, red)
}

// RedeemVoucherOnce redeems a voucher through the repository's
// conditional create; the lookup only answers the common replay early.
//
// corpus: ok checkthenact
// modelled on: go-zoox/gormx find_one_or_create.go (FindOneOrCreate: FindOne, then Create when it fails)
func (s *Server) RedeemVoucherOnce(w http.ResponseWriter, r *http.Request) {
	var req redeemRequest
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx, uid := r.Context(), userID(r)
	if _, err := s.redemptions.FindRedemption(ctx, req.Code, uid); err == nil {
		writeError(w, http.StatusConflict, "voucher already redeemed")
		return
	} else if !errors.Is(err, store.ErrNotFound) {
		writeError(w, http.StatusInternalServerError, "lookup failed")
		return
	}
	red := &store.Redemption{ID: uuid.NewString(), CouponCode: req.Code, UserID: uid, AmountOff: couponValue(req.Code), RedeemedAt: time.Now()}
	created, err := s.redemptions.CreateRedemptionOnce(ctx, red)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "redeem failed")
		return
	}
	if !created {
		writeError(w, http.StatusConflict, "voucher already redeemed")
		return
	}
	writeJSON(w, http.StatusCreated, red)
}

// UseLoyaltyCoupon records a loyalty coupon's use through the sqlc
// queries, locking the use row it is about to create.
//
// corpus: bug checkthenact
// modelled on: enumerate1/wager-api internal/repositories/common.go (a FOR UPDATE suffix added to the lookup)
func (s *Server) UseLoyaltyCoupon(w http.ResponseWriter, r *http.Request) {
	var req struct {
		CouponID int64  `json:"coupon_id"`
		OrderID  string `json:"order_id"`
	}
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx, uid := r.Context(), userID(r)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		q := s.q.WithTx(tx)
		_, err := q.GetCouponUseForUpdate(ctx, db.GetCouponUseForUpdateParams{CouponID: req.CouponID, UserID: uid})
		if err == nil {
			return nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		return q.InsertCouponUse(ctx, db.InsertCouponUseParams{CouponID: req.CouponID, UserID: uid, OrderID: req.OrderID})
	})
	if err != nil {
		writeError(w, http.StatusInternalServerError, "use failed")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// UseLoyaltyCouponLocked records a loyalty coupon's use through the sqlc
// queries after locking the user's account row, which exists, so that a
// request and its retry count and insert one after the other.
//
// corpus: ok checkthenact
// modelled on: chrimora/go-ddd internal/common/dbtx.go (sqlc's DBTX with Begin, so queries run in the caller's transaction)
func (s *Server) UseLoyaltyCouponLocked(w http.ResponseWriter, r *http.Request) {
	var req struct {
		CouponID int64  `json:"coupon_id"`
		OrderID  string `json:"order_id"`
	}
	if err := decode(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx, uid := r.Context(), userID(r)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		q := s.q.WithTx(tx)
		if _, err := q.LockAccount(ctx, uid); err != nil {
			return err
		}
		n, err := q.CountCouponUses(ctx, db.CountCouponUsesParams{CouponID: req.CouponID, UserID: uid})
		if err != nil || n > 0 {
			return err
		}
		return q.InsertCouponUse(ctx, db.InsertCouponUseParams{CouponID: req.CouponID, UserID: uid, OrderID: req.OrderID})
	})
	if err != nil {
		writeError(w, http.StatusInternalServerError, "use failed")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
