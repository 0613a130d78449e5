package calls

import (
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

type Job struct {
	ID       string
	State    string
	Version  int
	LockedBy string
	Status   string
}

func gormMore(db *gorm.DB, job *Job, id string) {
	var ev ProcessedEvent
	var n int
	db.Save(job)                                                                         // want `orm Save op=4 model=Job` `access update Save record="sql job" keys=<job> dest=<> for-update=false appends=false`
	db.Model(job).Update("state", "done")                                                // want `orm Update op=4 model=Job` `access update Update record="sql job" keys=<job> dest=<>`
	db.Model(&Job{}).Where("id = ? AND state = ?", id, "new").Update("state", "running") // want `orm Update op=4 model=Job` `access guarded update Update record="sql job" keys=<&Job\{\}; id; "new"> dest=<>`
	db.Model(job).Where("version = ?", 3).Updates(map[string]any{"state": "done"})       // want `orm Updates op=4` `access guarded update Updates record="sql job"`
	db.Model(job).Where("id = ?", id).Updates(map[string]any{"state": "done"})           // want `orm Updates op=4` `access update Updates record="sql job" keys=<job; id>`
	db.Model(job).Where(map[string]any{"state": "new"}).UpdateColumns(Job{State: "x"})   // want `orm UpdateColumns op=4` `access guarded update UpdateColumns record="sql job"`
	db.Model(job).Where(&Job{ID: id}).UpdateColumn("state", "x")                         // want `orm UpdateColumn op=4` `access update UpdateColumn record="sql job" keys=<job; &Job\{…\}>`
	db.Model(job).Where(&Job{State: "new"}).UpdateColumn("state", "x")                   // want `orm UpdateColumn op=4` `access guarded update UpdateColumn`
	db.Model(job).Where("locked_by = ?", "").Update("locked_by", id)                     // want `orm Update op=4` `access guarded update Update`
	db.Model(job).Where("locked_by = ?", "").Updates(map[string]any{"locked_by": id})    // want `orm Updates op=4` `access guarded update Updates`
	db.Model(job).Where("locked_by = ?", "").Updates(map[string]any{"owner": id})        // want `orm Updates op=4` `access update Updates`
	db.Model(job).Where(&Job{Version: 2}).Updates(Job{State: "x"})                       // want `orm Updates op=4` `access guarded update Updates`
	db.Model(job).Where(&Job{LockedBy: ""}).Update("locked_by", id)                      // want `orm Update op=4` `access guarded update Update`
	db.Model(job).Where(&Job{Status: "new"}).Update("state", id)                         // want `orm Update op=4` `access guarded update Update`
	db.Delete(&ev, "id = ?", id)                                                         // want `orm Delete op=5 model=ProcessedEvent` `access delete Delete record="sql processed_event" keys=<&ev; "id = \?"; id>`
	db.Where("id = ?", id).Delete(&ProcessedEvent{})                                     // want `orm Delete op=5` `access delete Delete record="sql processed_event" keys=<&ProcessedEvent\{\}; id>`
	db.Where("id = ?", id).FirstOrInit(&ev)                                              // want `orm FirstOrInit op=1 model=ProcessedEvent` `access read FirstOrInit record="sql processed_event" keys=<id> dest=<&ev>`
	db.Clauses(clause.Locking{Strength: "UPDATE"}).Where("id = ?", id).Take(&ev)         // want `orm Take op=1 model=ProcessedEvent on-conflict=false locking=true` `access read Take record="sql processed_event" keys=<id> dest=<&ev> for-update=true`
	db.Raw("SELECT count(*) FROM processed_events WHERE id = ?", id).Scan(&n)            // want `access read SELECT record="sql processed_event" keys=<id> dest=<&n>`
	db.Exec("INSERT INTO processed_events (id) VALUES (?) ON CONFLICT DO NOTHING", id)   // want `sql Exec INSERT processed_events const=true for-update=false conditional=true` `access claim INSERT record="sql processed_event" keys=<id>`
	db.Exec("DELETE FROM "+"processed_events WHERE id = ?", id)                          // want `sql Exec DELETE processed_events` `access delete DELETE`
}

// orm has gorm's method names and is not gorm.
type orm struct{}

func (orm) Save(v any) error                { return nil }
func (orm) Delete(v any) error              { return nil }
func (orm) Scan(dest any) error             { return nil }
func (orm) Raw(sql string, args ...any) orm { return orm{} }

func gormLookAlikes(db *gorm.DB, o orm, query, id string) {
	var n int
	o.Save(&Job{})
	o.Delete(&Job{})
	o.Raw("SELECT count(*) FROM processed_events WHERE id = ?", id).Scan(&n)
	db.Raw(query, id).Scan(&n)
	db.Where("id = ?", id).Scan(&n)
	db.Exec(query, id)                                                // want `sql Exec SQL  const=false`
	db.Exec("DELETE FROM processed_events WHERE id = ?", id).Scan(&n) // want `sql Exec DELETE` `access delete DELETE`
	db.Model(job()).Update("state", "x")                              // want `orm Update op=4 model= on-conflict`
}

func job() any { return nil }
