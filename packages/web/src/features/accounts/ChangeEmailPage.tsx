import { FeaturePending } from '../../components/FeaturePending.tsx';

export default function ChangeEmailPage() {
  return <FeaturePending titleKey="pages.changeEmail" />;
}
