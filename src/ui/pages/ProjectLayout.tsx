import { Link, Route, Switch, useLocation, useParams } from 'wouter';
import { ProjectContext, routeId, useProject } from '../hooks';
import { DocumentPage } from './DocumentPage';
import { DocumentsPage } from './DocumentsPage';
import { GazetteersPage } from './GazetteersPage';
import { ImportPage } from './ImportPage';
import { OverviewPage } from './OverviewPage';
import { RulesPage } from './RulesPage';
import { WeakPage } from './WeakPage';
import { TrainPage } from './TrainPage';
import { AnnotatePage } from './AnnotatePage';
import { ComparePage } from './ComparePage';
import { ReviewPage } from './ReviewPage';
import { RunPage } from './RunPage';
import { DistributionPage } from './DistributionPage';
import { useReviewLoop } from '../reviewLoop';
import { SearchBox, SearchPage } from './SearchPage';

const TABS = [
  ['/', 'Overview'],
  ['/docs', 'Documents'],
  ['/import', 'Import'],
  ['/gazetteers', 'Gazetteers'],
  ['/rules', 'Rules'],
  ['/weak', 'Weak labels'],
  ['/train', 'Train'],
  ['/compare', 'Compare runs'],
  ['/distribution', 'Label distribution'],
  ['/review', 'Review queue'],
] as const;

/** The review loop of the open project, mounted with the project so its fine-tunes go on across its pages. */
function ReviewLoopRunner({ projectId }: { projectId: number }) {
  useReviewLoop(projectId);
  return null;
}

export function ProjectLayout() {
  const raw = useParams<{ id: string }>().id;
  const projectId = routeId(raw);
  const project = useProject(projectId);
  const [location] = useLocation();
  if (project === undefined) return <p className="muted">Loading…</p>;
  if (project === null)
    return (
      <p role="alert" className="error">
        Project {JSON.stringify(decodeURIComponent(raw ?? ''))} does not exist. <Link href="~/">All projects</Link>
      </p>
    );
  return (
    <ProjectContext.Provider value={projectId}>
      <ReviewLoopRunner projectId={projectId} />
      <section>
        <div className="row">
          <h1 data-testid="project-name">{project.name}</h1>
          <SearchBox />
        </div>
        <nav className="tabs">
          {TABS.map(([href, label]) => (
            <Link key={href} href={href} className={(href === '/' ? location === '/' : location.startsWith(href)) ? 'tab active' : 'tab'}>
              {label}
            </Link>
          ))}
        </nav>
        <Switch>
          <Route path="/" component={OverviewPage} />
          <Route path="/docs" component={DocumentsPage} />
          <Route path="/docs/:docId" component={DocumentPage} />
          <Route path="/import" component={ImportPage} />
          <Route path="/gazetteers" component={GazetteersPage} />
          <Route path="/rules" component={RulesPage} />
          <Route path="/weak" component={WeakPage} />
          <Route path="/train" component={TrainPage} />
          <Route path="/compare" component={ComparePage} />
          <Route path="/runs/:runId" component={RunPage} />
          <Route path="/distribution" component={DistributionPage} />
          <Route path="/annotate/:docId/:token?/:into?" component={AnnotatePage} />
          <Route path="/review" component={ReviewPage} />
          <Route path="/search/:q" component={SearchPage} />
          <Route>
            <p role="alert" className="error" data-testid="not-found">
              There is no page at {JSON.stringify(location)} in this project. <Link href="/">Go to its overview</Link>.
            </p>
          </Route>
        </Switch>
      </section>
    </ProjectContext.Provider>
  );
}
